package io.eve.samples.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import io.eve.samples.cli.ReplicaLaunch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link NemesisIT} for the quorum profiles: replica JVMs with every link through its own {@link LinkProxy}
 * ({@link ProxiedCluster}), register clients, and a nemesis that partitions one replica from the others for
 * longer than the failure (view) timeout (the fault primary-backup cannot take), kills one and restarts it
 * with {@code --join}, pauses one and delays links. The history is checked for linearizability and every
 * execution replica must end with the same state; the fault log and the report go to
 * {@code target/process-it/<run>/nemesis-report.txt}.
 *
 * <p>crash (3 processes): a backup, then the execution primary, partitioned. bft (4 processes, u = r = 1,
 * authenticated links): the primary partitioned, and a hostile peer on replica 0's own port that sends
 * envelopes with tags it cannot compute, protocol messages without an envelope, replays of frames captured
 * on the link from replica 1 (in another name, and in replica 1's own), and a slow-loris connection; replica
 * 0 must drop and count every one of them ({@code eve_auth_rejected_total} on its {@code /metrics}) and close
 * the slow-loris connection, while the workload goes on.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class QuorumNemesisIT {
    private static final int KEYS = 4;
    private static final int OBJECT_SIZE = 1024;
    private static final int FAILURE_TIMEOUT_MS = 2_000;
    private static final Duration LIMIT = Duration.ofSeconds(20);

    /** The bft run's hostile peer attacks this replica, which the nemesis never kills (its counters stay). */
    private static final int TARGET = 0;

    /** The link whose first frames are captured for replays: from this replica to {@link #TARGET}. */
    private static final int CAPTURED_FROM = 1;

    private static final int CAPTURE_BYTES = 64 * 1024;
    private static final int HOSTILE_ID = 990_001;
    private static final int FORGED = 40;
    private static final int UNSEALED = 20;
    private static final int NOT_FROM_A_CLIENT = 10;

    /** The transport's frame timeout (NettyTransport's default): a slow-loris connection lasts this long. */
    private static final Duration FRAME_TIMEOUT = Duration.ofSeconds(30);

    private final Nemesis nemesis = new Nemesis(LIMIT);
    private int injected;

    @Test
    void shouldStayLinearizableWhenAReplicaIsPartitionedLongerThanTheFailureTimeout() throws Exception {
        Path dir = Nemesis.workDir("quorum-nemesis");
        try (ProxiedCluster wired = ProxiedCluster.wire(dir, "crash", FAILURE_TIMEOUT_MS)) {
            ReplicaProcesses cluster = wired.launch();
            RegisterWorkload workload = RegisterWorkload.start(wired.clientConfig(), 9_000, 6, KEYS, OBJECT_SIZE);
            try {
                nemesis.awaitProgress(workload, 200);
                int primary = cluster.primary(LIMIT);
                partition(wired, workload, (primary + 1) % 3);
                partition(wired, workload, primary);
                killAndRejoin(cluster, workload, (cluster.primary(LIMIT) + 1) % 3);
                pause(cluster, workload, cluster.primary(LIMIT));
                delay(wired, workload);
            } finally {
                workload.stop();
            }
            finish(dir, cluster, workload);
        }
    }

    @Test
    void shouldStayLinearizableAndDropForgedReplayedAndSlowFramesInTheBftProfile() throws Exception {
        Path dir = Nemesis.workDir("quorum-nemesis-bft");
        try (ProxiedCluster wired = ProxiedCluster.wire(dir, "bft", FAILURE_TIMEOUT_MS);
                HostilePeer attacker = new HostilePeer(wired.transportAddress(TARGET))) {
            wired.link(CAPTURED_FROM, TARGET).capture(CAPTURE_BYTES);
            ReplicaProcesses cluster = wired.launch();
            fault("slow-loris connection to node " + TARGET + ": one byte of a frame every 250 ms");
            try (HostilePeer.SlowLoris loris = attacker.startSlowLoris(HOSTILE_ID, 250)) {
                runBft(dir, wired, cluster, attacker, loris);
            }
        }
    }

    /** The bft nemesis, with the hostile peer's attacks, while a slow-loris connection holds on. */
    private void runBft(
            Path dir, ProxiedCluster wired, ReplicaProcesses cluster, HostilePeer attacker, HostilePeer.SlowLoris loris)
            throws Exception {
        RegisterWorkload workload = RegisterWorkload.start(wired.clientConfig(), 9_000, 6, KEYS, OBJECT_SIZE);
        long rejectedExpected;
        try {
            nemesis.awaitProgress(workload, 200);
            partition(wired, workload, cluster.primary(LIMIT));
            rejectedExpected = attack(wired, cluster, attacker, workload);
            killAndRejoin(cluster, workload, executionBackupOtherThanTarget(cluster));
            pause(cluster, workload, cluster.primary(LIMIT));
            delay(wired, workload);
        } finally {
            workload.stop();
        }
        Duration heldOpen = awaitClosed(loris);
        nemesis.log("node " + TARGET + " closed the slow-loris connection after " + heldOpen.toMillis() + " ms ("
                + loris.sent() + " bytes of its frame sent)");
        long rejected = rejected(cluster);
        nemesis.log("node " + TARGET + " eve_auth_rejected_total " + rejected + ", expected " + rejectedExpected);
        finish(dir, cluster, workload);

        assertThat(rejected)
                .as("messages node %d dropped: every hostile one, and no honest one", TARGET)
                .isEqualTo(rejectedExpected);
        assertThat(heldOpen).as("the slow-loris connection's life").isGreaterThanOrEqualTo(FRAME_TIMEOUT);
        assertThat(cluster.metric(TARGET, "eve_transport_closed_total").orElse(-1))
                .as("connections node %d's transport closed, by its /metrics (the slow-loris one at least)", TARGET)
                .isGreaterThanOrEqualTo(1);
        assertThat(Files.readString(cluster.log(TARGET), StandardCharsets.UTF_8))
                .contains("a frame started and did not finish within " + FRAME_TIMEOUT.toMillis() + " ms");
    }

    /**
     * The hostile peer's attacks on {@link #TARGET}'s own port; returns how many messages the target must
     * have dropped. In the target's own name (its authenticated link has no other connection under that
     * name to disturb): envelopes with made-up tags, protocol messages without an envelope, and the
     * captured envelopes of {@link #CAPTURED_FROM} (wrong origin); under an id without keys, protocol
     * messages. Then the captured envelopes in their sender's own name, to the target and to replica 2: the
     * links accept them (the tags are right) and the protocol must ignore them (one vote per verifier,
     * view and batch; older views are ignored). That connection displaces the sender's own for a moment.
     */
    private long attack(ProxiedCluster wired, ReplicaProcesses cluster, HostilePeer attacker, RegisterWorkload workload)
            throws Exception {
        List<byte[]> envelopes = new ArrayList<>();
        for (byte[] frame : HostilePeer.frames(wired.link(CAPTURED_FROM, TARGET).captured())) {
            if (HostilePeer.decode(frame) instanceof Message.Authenticated sealed && sealed.origin() == CAPTURED_FROM) {
                envelopes.add(frame);
            }
        }
        assertThat(envelopes)
                .as("envelopes captured on the link %d->%d", CAPTURED_FROM, TARGET)
                .hasSizeGreaterThan(10);
        long before = rejected(cluster);
        fault("hostile peer to node " + TARGET + ": " + FORGED + " envelopes with forged tags, " + UNSEALED
                + " unsealed protocol messages, " + envelopes.size() + " replays of node " + CAPTURED_FROM
                + "'s envelopes in node " + TARGET + "'s name, " + NOT_FROM_A_CLIENT
                + " protocol messages from an id without keys");
        attacker.sendForgedEnvelopes(TARGET, TARGET, wired.nodes(), FORGED, 7);
        attacker.sendUnsealed(TARGET, UNSEALED);
        attacker.replay(TARGET, envelopes);
        attacker.sendUnsealed(HOSTILE_ID + 1, NOT_FROM_A_CLIENT);
        long expected = before + FORGED + UNSEALED + envelopes.size() + NOT_FROM_A_CLIENT;
        awaitRejected(cluster, expected);
        nemesis.log("node " + TARGET + " dropped and counted all " + (expected - before));

        fault("replay node " + CAPTURED_FROM + "'s " + envelopes.size() + " envelopes in its own name to nodes "
                + TARGET + " and 2");
        attacker.replay(CAPTURED_FROM, envelopes);
        try (HostilePeer second = new HostilePeer(wired.transportAddress(2))) {
            second.replay(CAPTURED_FROM, envelopes);
        }
        nemesis.awaitProgress(workload, 200);
        return expected;
    }

    /** An execution replica that is neither the primary nor the hostile peer's target (whose counters must stay). */
    private static int executionBackupOtherThanTarget(ReplicaProcesses cluster) throws InterruptedException {
        int primary = cluster.primary(LIMIT);
        return primary == 1 ? 2 : 1;
    }

    private static long rejected(ReplicaProcesses cluster) throws InterruptedException {
        return (long) cluster.metric(TARGET, "eve_auth_rejected_total").orElse(-1);
    }

    private static void awaitRejected(ReplicaProcesses cluster, long count) throws InterruptedException {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (rejected(cluster) < count) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("node " + TARGET + " counted " + rejected(cluster)
                        + " rejected messages within " + LIMIT + ", expected " + count);
            }
            Thread.sleep(50);
        }
    }

    private static Duration awaitClosed(HostilePeer.SlowLoris loris) throws InterruptedException {
        long deadline = System.nanoTime() + FRAME_TIMEOUT.plus(LIMIT).toNanos();
        while (loris.closedAfter().isEmpty()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("the slow-loris connection is still open after sending " + loris.sent()
                        + " bytes of one frame");
            }
            Thread.sleep(100);
        }
        return loris.closedAfter().orElseThrow();
    }

    /** Cuts every link between {@code node} and the other replicas (clients still reach it) for 2.5 failure timeouts. */
    private void partition(ProxiedCluster wired, RegisterWorkload workload, int node) throws Exception {
        long millis = FAILURE_TIMEOUT_MS * 5L / 2;
        fault("partition node " + node + " from the other replicas for " + millis + " ms");
        wired.isolate(node);
        Thread.sleep(millis); // the length of the fault, longer than the failure timeout
        nemesis.awaitProgress(workload, 100); // the others serve meanwhile
        wired.healReplicaLinks();
        nemesis.log("heal node " + node);
        nemesis.awaitProgress(workload, 200);
    }

    private void killAndRejoin(ReplicaProcesses cluster, RegisterWorkload workload, int victim) throws Exception {
        fault("SIGKILL node " + victim);
        cluster.kill(victim);
        nemesis.awaitProgress(workload, 200);
        nemesis.log("restart node " + victim + " with --join");
        cluster.restartJoining(victim);
        cluster.awaitStatus(victim, status -> status.transfers() > 0, LIMIT);
        nemesis.awaitProgress(workload, 200);
    }

    private void pause(ReplicaProcesses cluster, RegisterWorkload workload, int node) throws Exception {
        fault("SIGSTOP node " + node + " for " + FAILURE_TIMEOUT_MS / 3 + " ms");
        cluster.pause(node);
        try {
            Thread.sleep(FAILURE_TIMEOUT_MS / 3); // the length of the fault
        } finally {
            cluster.resume(node);
        }
        nemesis.awaitProgress(workload, 200);
    }

    private void delay(ProxiedCluster wired, RegisterWorkload workload) throws Exception {
        fault("delay every replica link by 20 ms for 1.5 s");
        wired.delayReplicaLinks(20);
        Thread.sleep(1_500); // the length of the fault
        wired.healReplicaLinks();
        nemesis.awaitProgress(workload, 200);
    }

    /**
     * The end of a run: the execution replicas reach the same state, the history is checked, the fault log
     * and the report are written, and the history must be linearizable.
     */
    private void finish(Path dir, ReplicaProcesses cluster, RegisterWorkload workload) throws Exception {
        ReplicaLaunch.Status[] all = cluster.awaitSameState(1, LIMIT, 0, 1, 2);
        RegisterWorkload.Report report = workload.check();
        nemesis.log("done at batch " + all[0].stableSeq() + ", " + injected + " faults injected: " + report);
        Files.write(dir.resolve("nemesis-report.txt"), nemesis.events(), StandardCharsets.UTF_8);

        assertThat(report.violations()).as("linearizability: %s", report).isEmpty();
        assertThat(report.errors()).as("error replies").isZero();
        assertThat(report.checked()).as("operations checked").isGreaterThan(1_000);
    }

    private void fault(String event) {
        injected++;
        nemesis.log(event);
    }
}
