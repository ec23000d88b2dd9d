package io.eve.samples.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.config.ClusterConfig;
import io.eve.config.NodeAddress;
import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.samples.cli.ReplicaLaunch;
import io.eve.server.security.Bundles;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 20's attack over real processes: a bft cluster as shipped (mutual TLS on every connection, each node
 * its own bundle folder, signed evidence), nodes 0, 1 and 2 as replica JVMs, and node 3 a Byzantine member
 * ({@link ByzantineMember}) holding only its own bundle: the product's transport and envelopes with its own
 * keys, which never votes honestly. Clients run a register workload throughout.
 *
 * <ol>
 *   <li>Spoofed links: with its own certificate it opens a TLS connection to node 1 claiming node 0's id, and
 *       one claiming a client's id; over plain TCP it claims node 0; on its own link it sends signed pieces and
 *       tagged envelopes claiming node 0 as origin, and in its own name a {@code VerifyResponse} for a token
 *       nobody computed. Each connection is refused and counted ({@code eve_transport_closed_total}, reasons
 *       {@code impostor} and {@code tls_failed}), each claim dropped and counted ({@code eve_auth_rejected_total}:
 *       a wrong origin, or an envelope where the links carry none, decision 0048), and node 1
 *       keeps committing, which needs node 0's votes: the real link from node 0 survived.
 *   <li>Forged evidence: node 0 is stopped (SIGSTOP), so the two correct verifiers left need a third view change
 *       to start a new view, and the Byzantine member sends them view changes whose certificates claim every
 *       verifier prepared a token nobody computed, past every commit: the others' {@code Prepare}s signed with
 *       its own key, carrying their genuine signatures over the forged frames, or tagged with its own MACs.
 *       They are refused ({@code eve_quorum_refused_total{reason="bad-signature"}}); the view changes once node
 *       0 is back, and every new view starts below the invented batch.
 * </ol>
 *
 * At the end the three execution replicas hold the same state, the history is linearizable, and no error
 * reply was seen: no correct replica committed or installed a state that no correct replica produced.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ByzantineMemberIT {
    private static final int BYZANTINE = 3;
    private static final int TARGET = 1;
    private static final int STOPPED = 0;
    private static final int FAILURE_TIMEOUT_MS = 2_000;
    private static final Duration LIMIT = Duration.ofSeconds(40);
    private static final int ENVELOPES_CLAIMING_ANOTHER = 10;
    /** How far past the last commit the invented certificate claims to be. */
    private static final long INVENTED_AHEAD = 5;

    private static final Pattern VIEW_START = Pattern.compile("view (\\d+) starts from batch (\\d+)");

    private final Nemesis nemesis = new Nemesis(LIMIT);

    @Test
    void shouldCommitOnlyWhatCorrectReplicasProducedWhenAMemberForgesEvidenceAndSpoofsLinks() throws Exception {
        Path dir = Nemesis.workDir("byzantine-member");
        try (ReplicaProcesses cluster = ReplicaProcesses.startQuorumOverTls(dir, "bft", 3)) {
            ClusterConfig config = ClusterConfig.load(cluster.config());
            Map<Integer, InetSocketAddress> peers = new HashMap<>();
            for (NodeAddress node : config.nodes()) {
                peers.put(node.id(), new InetSocketAddress(node.host(), node.port()));
            }
            int[] ids = config.nodes().stream().mapToInt(NodeAddress::id).toArray();
            Path ownBundle = dir.resolve(ReplicaProcesses.BUNDLE).resolve("node-" + BYZANTINE);
            try (ByzantineMember byzantine = ByzantineMember.start(
                    BYZANTINE, ids, ownBundle, peers.get(BYZANTINE), peers, config.maxFrameBytes())) {
                RegisterWorkload workload =
                        RegisterWorkload.start(cluster.config(), Bundles.FIRST_CLIENT_ID + 9_000, 4, 4, 1024);
                try {
                    nemesis.awaitProgress(workload, 200);
                    spoofLinks(cluster, byzantine, workload);
                    forgeViewChanges(cluster, byzantine, workload);
                } finally {
                    workload.stop();
                }
                finish(dir, cluster, workload);
            }
        }
    }

    private void spoofLinks(ReplicaProcesses cluster, ByzantineMember byzantine, RegisterWorkload workload)
            throws Exception {
        long view = cluster.status(TARGET).orElseThrow().view();
        double impostors = closed(cluster, "impostor");
        double tlsFailed = closed(cluster, "tls_failed");
        double rejected = cluster.metric(TARGET, "eve_auth_rejected_total").orElse(0);
        long committed = committed(cluster, TARGET);
        Token fake = ByzantineMember.invented(committed + 1);
        List<Message> lies =
                List.of(new Message.VerifyResponse(view, fake, false), new Message.CommitVote(view, STOPPED, fake));
        nemesis.log("byzantine node 3: TLS with its own certificate claiming node 0, and a client, to node 1");
        assertThat(byzantine.claimOverTls(cluster.transportAddress(TARGET), STOPPED, lies))
                .as("a TLS connection with node 3's certificate claiming node 0 is closed")
                .isTrue();
        assertThat(byzantine.claimOverTls(cluster.transportAddress(TARGET), Bundles.FIRST_CLIENT_ID + 5, List.of()))
                .as("a node's certificate never passes for a client")
                .isTrue();
        nemesis.log("byzantine node 3: plain TCP claiming node 0 to node 1");
        assertThat(byzantine.claimOverPlainTcp(cluster.transportAddress(TARGET), STOPPED, lies))
                .as("a plain TCP connection claiming node 0 is closed")
                .isTrue();
        nemesis.log("byzantine node 3: " + ENVELOPES_CLAIMING_ANOTHER + " envelopes claiming node 0 on its own link,"
                + " and a VerifyResponse for " + fake + " in its own name");
        for (int i = 0; i < ENVELOPES_CLAIMING_ANOTHER; i++) {
            byzantine.sendClaiming(TARGET, STOPPED, new Message.VerifyResponse(view, fake, false), i % 2 == 0);
        }
        for (int replica = 0; replica < 3; replica++) {
            byzantine.sendOwn(replica, new Message.VerifyResponse(view, fake, false));
        }
        awaitAtLeast(() -> closed(cluster, "impostor"), impostors + 2, "impostor connections closed by node 1");
        awaitAtLeast(() -> closed(cluster, "tls_failed"), tlsFailed + 1, "connections without TLS closed by node 1");
        awaitAtLeast(
                () -> cluster.metric(TARGET, "eve_auth_rejected_total").orElse(0),
                rejected + ENVELOPES_CLAIMING_ANOTHER,
                "envelopes claiming another origin dropped by node 1");
        // Node 3 never votes, so node 1 commits only with node 0's votes: its link from node 0 still carries them.
        awaitAtLeast(() -> committed(cluster, TARGET), committed + 20, "batches node 1 commits after the spoofing");
        nemesis.awaitProgress(workload, 200);
    }

    private void forgeViewChanges(ReplicaProcesses cluster, ByzantineMember byzantine, RegisterWorkload workload)
            throws Exception {
        double[] refused = new double[3];
        for (int node = 0; node < 3; node++) {
            refused[node] = badSignatures(cluster, node);
        }
        nemesis.log("SIGSTOP node " + STOPPED + ": the correct verifiers left need a third view change");
        cluster.pause(STOPPED);
        long view;
        long committed;
        Token invented;
        try {
            Thread.sleep(500); // nothing commits without node 0 from here on (node 3 never votes)
            view = Math.max(view(cluster, 1), view(cluster, 2));
            committed = Math.max(committed(cluster, 1), committed(cluster, 2));
            invented = ByzantineMember.invented(committed + INVENTED_AHEAD);
            nemesis.log("byzantine node 3: view changes to views " + (view + 1) + "-" + (view + 3)
                    + " with forged Prepares of the others for " + invented + " (last commit " + committed + ")");
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3L * FAILURE_TIMEOUT_MS);
            for (int round = 0; System.nanoTime() - until < 0; round++) {
                for (long newView = view + 1; newView <= view + 3; newView++) {
                    byzantine.sendForgedViewChange(newView, invented, round % 3);
                }
                Thread.sleep(200); // the pace of the forgeries
            }
        } finally {
            cluster.resume(STOPPED);
        }
        nemesis.log("SIGCONT node " + STOPPED + " after " + byzantine.forgedChanges() + " forged view changes");
        for (int node = 0; node < 3; node++) {
            long before = view;
            cluster.awaitStatus(node, status -> status.view() > before, LIMIT);
        }
        nemesis.awaitProgress(workload, 200);
        for (int node = 1; node <= 2; node++) {
            int at = node;
            awaitAtLeast(() -> badSignatures(cluster, at), refused[at] + 1, "forged pieces node " + at + " refused");
        }
        assertThat(byzantine.preparesHeard())
                .as("genuine Prepares heard, whose signatures the forged pieces reused")
                .isGreaterThanOrEqualTo(2);
        for (int node = 0; node < 3; node++) {
            Matcher starts = VIEW_START.matcher(Files.readString(cluster.log(node), StandardCharsets.UTF_8));
            while (starts.find()) {
                if (Long.parseLong(starts.group(1)) > view) {
                    assertThat(Long.parseLong(starts.group(2)))
                            .as("node %d: %s, never from the invented %s", node, starts.group(), invented)
                            .isLessThan(invented.seq());
                }
            }
        }
    }

    private void finish(Path dir, ReplicaProcesses cluster, RegisterWorkload workload) throws Exception {
        ReplicaLaunch.Status[] all = cluster.awaitSameState(1, LIMIT, 0, 1, 2);
        RegisterWorkload.Report report = workload.check();
        nemesis.log("done at batch " + all[0].stableSeq() + " in view " + all[0].view() + ": " + report);
        Files.write(dir.resolve("byzantine-report.txt"), nemesis.events(), StandardCharsets.UTF_8);
        assertThat(report.violations()).as("linearizability: %s", report).isEmpty();
        assertThat(report.errors()).as("error replies").isZero();
        assertThat(report.checked()).as("operations checked").isGreaterThan(500);
        for (int node = 0; node < 3; node++) {
            // Node 3 never sends a matching Prepare, so no certificate holds all four and every one is checked.
            assertThat(cluster.metric(node, "eve_quorum_signatures_total", "op=\"made\"")
                            .orElse(0))
                    .as("node %d: signatures made", node)
                    .isPositive();
            assertThat(cluster.metric(node, "eve_quorum_signatures_total", "op=\"verified\"")
                            .orElse(0))
                    .as("node %d: signatures of others verified", node)
                    .isPositive();
        }
    }

    private static double closed(ReplicaProcesses cluster, String reason) throws InterruptedException {
        return cluster.metric(TARGET, "eve_transport_closed_total", "reason=\"" + reason + "\"")
                .orElse(0);
    }

    private static double badSignatures(ReplicaProcesses cluster, int node) throws InterruptedException {
        return cluster.metric(node, "eve_quorum_refused_total", "reason=\"bad-signature\"")
                .orElse(0);
    }

    private static long committed(ReplicaProcesses cluster, int node) throws InterruptedException {
        return (long) cluster.metric(node, "eve_verifier_committed_seq").orElse(-1);
    }

    private static long view(ReplicaProcesses cluster, int node) throws InterruptedException {
        return cluster.status(node).map(ReplicaLaunch.Status::view).orElse(-1L);
    }

    @FunctionalInterface
    private interface Reading {
        double read() throws InterruptedException;
    }

    private static void awaitAtLeast(Reading reading, double target, String what) throws InterruptedException {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        double last = reading.read();
        while (last < target) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError(what + ": " + last + " within " + LIMIT + ", expected at least " + target);
            }
            Thread.sleep(50);
            last = reading.read();
        }
    }
}
