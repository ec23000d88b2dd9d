package io.eve.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.rdma.control.ControlChannel;
import io.eve.rdma.memory.InMemoryFabric;
import io.eve.transport.LocalNetwork;
import io.eve.transport.RoutedTransport;
import io.eve.verify.primarybackup.CounterApp;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.PrimaryBackupRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verification protocol itself over RDMA: a primary-backup pair whose replica traffic (batches,
 * tokens, commits, heartbeats) runs over {@link RdmaTransport} rings on the in-memory fabric, with clients
 * on a separate network ({@link RoutedTransport}, as {@code eve replica} wires it). Part way through, the
 * backup revokes the primary's access to its region: the pair degrades to the control channel and goes
 * on without losing, duplicating or reordering anything the protocol sent, also with the control channel
 * under mutual TLS (where a plain peer claiming the primary's id is refused meanwhile). And a backup that
 * starts seconds after the primary gets everything the primary sent it before it listened, so nobody fails
 * over.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PrimaryBackupOverRdmaIT {

    @Test
    void shouldCommitOverRingsAndKeepCommittingWhenThePathDegrades() throws Exception {
        InMemoryFabric fabric = new InMemoryFabric();
        commitThroughADegrade(fabric, new RdmaNodes(fabric::node), rdma -> {});
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldCommitWithTheControlChannelUnderMutualTlsAndRefuseAPlainPeer(@TempDir Path dir) throws Exception {
        InMemoryFabric fabric = new InMemoryFabric();
        RdmaNodes rdma = RdmaNodes.withTls(fabric::node, TlsBundle.write(dir, 2));
        commitThroughADegrade(fabric, rdma, PrimaryBackupOverRdmaIT::plainPeerSaysItIsThePrimary);
        assertThat(rdma.transport(1).refusedControlConnections(ControlChannel.Refusal.IMPOSTOR))
                .isZero();
        assertThat(rdma.transport(1).status())
                .allSatisfy(status -> assertThat(status.refusedImpostors() + status.failedTlsDials())
                        .isZero());
    }

    /**
     * A plain TCP peer opens a control connection to the backup and says it is the primary, of a new
     * incarnation (which, believed, would make the backup start the pair afresh): it is refused and counted.
     */
    private static void plainPeerSaysItIsThePrimary(RdmaNodes rdma) {
        RdmaTransport backup = rdma.transport(1);
        long before = backup.refusedControlConnections(ControlChannel.Refusal.TLS_FAILED);
        ByteBuffer hello = ByteBuffer.allocate(25)
                .putInt(21)
                .put((byte) 1)
                .putInt(0)
                .putLong(999)
                .putLong(1);
        try (Socket plain = new Socket()) {
            plain.connect(backup.boundAddress(), 10_000);
            plain.setSoTimeout(30_000);
            plain.getOutputStream().write(hello.array());
            plain.getOutputStream().flush();
            InputStream in = plain.getInputStream();
            while (in.read() >= 0) {
                // until the backup closes the connection
            }
        } catch (java.net.SocketTimeoutException e) {
            throw new AssertionError("the backup did not close a plain control connection within 30 s", e);
        } catch (java.io.IOException e) {
            // a reset: closed as well
        }
        try {
            RdmaDegradationTest.await(
                    () -> backup.refusedControlConnections(ControlChannel.Refusal.TLS_FAILED) > before);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Commits 200 adds over rings, runs {@code meanwhile}, revokes the primary's access to the backup's region
     * and commits 200 more, which the degraded pair carries on the control channel until it returns to rings.
     */
    private static void commitThroughADegrade(InMemoryFabric fabric, RdmaNodes rdma, Consumer<RdmaNodes> meanwhile)
            throws Exception {
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CounterApp[] apps = {new CounterApp(), new CounterApp()};
        ReplicaRuntime[] replicas = new ReplicaRuntime[2];
        try (LocalNetwork clients = new LocalNetwork()) {
            for (int node = 0; node < 2; node++) {
                replicas[node] = replica(node, rdma, clients, apps[node], failures);
                replicas[node].start();
            }
            try (EveClient client = new EveClient(
                    clients.join(100),
                    ClientConfig.of(0, 1).withTimeouts(Duration.ofSeconds(3), Duration.ofSeconds(30)))) {
                addAll(client, 0, 200);
                assertThat(rdma.transport(0).sentCounts(1)[0])
                        .as("messages from the primary to the backup through the ring")
                        .isPositive();
                meanwhile.accept(rdma);

                fabric.node(1).revoke(0);
                addAll(client, 200, 400);
                awaitDegraded(rdma, 0, 1);
            }
            awaitBothStable(replicas);
            assertThat(replicas[1].summary()).isEqualTo(replicas[0].summary());
            assertThat(apps[1].counters.get(3L)).isEqualTo(400L);
            assertThat(replicas[0].isPrimary())
                    .as("no failover: nothing was lost")
                    .isTrue();
            assertThat(replicas[0].view()).isZero();
            assertThat(failures).isEmpty();
        } finally {
            for (ReplicaRuntime replica : replicas) {
                if (replica != null) {
                    replica.close();
                }
            }
            fabric.close();
        }
    }

    @Test
    void shouldLoseNothingWhenTheBackupStartsSecondsAfterThePrimary() throws Exception {
        InMemoryFabric fabric = new InMemoryFabric();
        RdmaNodes rdma = new RdmaNodes(fabric::node);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CounterApp[] apps = {new CounterApp(), new CounterApp()};
        ReplicaRuntime[] replicas = new ReplicaRuntime[2];
        try (LocalNetwork clients = new LocalNetwork()) {
            rdma.reserve(1);
            replicas[0] = replica(0, rdma, clients, apps[0], failures);
            replicas[0].start();
            // Heartbeats go every 50 ms: forty of them are two seconds of a primary alone.
            RdmaDegradationTest.await(() -> rdma.transport(0).sentCounts(1)[1] >= 40);
            assertThat(rdma.transport(0).failedDials(1))
                    .as("the primary dialled the backup before it listened")
                    .isPositive();
            replicas[1] = replica(1, rdma, clients, apps[1], failures);
            replicas[1].start();
            try (EveClient client = new EveClient(
                    clients.join(100),
                    ClientConfig.of(0, 1).withTimeouts(Duration.ofSeconds(3), Duration.ofSeconds(30)))) {
                addAll(client, 0, 200);
            }
            awaitBothStable(replicas);
            assertThat(replicas[1].summary()).isEqualTo(replicas[0].summary());
            assertThat(apps[1].counters.get(3L)).isEqualTo(200L);
            assertThat(replicas[0].status().view())
                    .as("no failover: the backup heard every heartbeat")
                    .isZero();
            assertThat(replicas[1].status().view()).isZero();
            assertThat(replicas[0].isPrimary()).isTrue();
            assertThat(failures).isEmpty();
        } finally {
            for (ReplicaRuntime replica : replicas) {
                if (replica != null) {
                    replica.close();
                }
            }
            fabric.close();
        }
    }

    /**
     * Waits until both replicas' last stable batch reached what the primary committed. The primary learns
     * that a batch is stable from the backup's acknowledgement, so it may trail the backup by a batch for a
     * moment: comparing the summaries before that compares two instants, not two states.
     */
    private static void awaitBothStable(ReplicaRuntime[] replicas) throws Exception {
        long committed = replicas[0].committed();
        RdmaDegradationTest.await(() -> replicas[0].summary().stableSeq() >= committed
                && replicas[1].summary().stableSeq() >= committed);
    }

    private static ReplicaRuntime replica(
            int node, RdmaNodes rdma, LocalNetwork clients, CounterApp app, List<Throwable> failures) {
        return ReplicaRuntime.builder()
                .roles(PrimaryBackupRoles.of(PrimaryBackupConfig.of(0, 1, node)
                        .withTimeouts(50_000_000L, 2_000_000_000L)
                        .withBatching(4, 16, 1_000_000L)))
                .transport(new RoutedTransport(rdma.node(node), Set.of(0, 1), clients.join(node)))
                .application(app)
                .mixer(KeyConflictMixer.unbounded())
                .executorThreads(2)
                .onFailure(failures::add)
                .build();
    }

    /** Adds 1 to counter 3, {@code to - from} times, and checks every reply counts up by one. */
    private static void addAll(EveClient client, long from, long to) throws Exception {
        for (long expected = from + 1; expected <= to; expected++) {
            CompletableFuture<io.eve.Reply> reply = client.submit(CounterApp.add(3, 1));
            String value = new String(reply.get(30, TimeUnit.SECONDS).payload(), StandardCharsets.UTF_8);
            assertThat(Long.parseLong(value)).isEqualTo(expected);
        }
    }

    /** The pair left the revoked rings for the control channel, and then came back to fresh rings. */
    private static void awaitDegraded(RdmaNodes rdma, int from, int to) throws InterruptedException {
        RdmaDegradationTest.await(() -> rdma.transport(from).degrades(to) > 0);
        RdmaDegradationTest.await(
                () -> rdma.transport(from).ringOpen(to) && rdma.transport(to).ringOpen(from));
        assertThat(rdma.transport(from).upgrades(to))
                .as("the pair returned to rings")
                .isPositive();
    }
}
