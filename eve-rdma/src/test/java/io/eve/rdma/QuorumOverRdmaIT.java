package io.eve.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.rdma.memory.InMemoryFabric;
import io.eve.rdma.memory.Placement;
import io.eve.transport.LocalNetwork;
import io.eve.transport.RoutedTransport;
import io.eve.transport.Transport;
import io.eve.transport.wire.FrameCodec;
import io.eve.verify.auth.AuthenticatingTransport;
import io.eve.verify.auth.Authenticator;
import io.eve.verify.auth.Envelopes;
import io.eve.verify.auth.MacEvidence;
import io.eve.verify.auth.MacKeys;
import io.eve.verify.primarybackup.CounterApp;
import io.eve.verify.quorum.Evidence;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.QuorumRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The quorum profiles over RDMA: a crash (3 processes) or bft (4 processes, every message authenticated)
 * cluster whose traffic between processes runs over {@link RdmaTransport} rings on the in-memory fabric,
 * clients on a separate network ({@link RoutedTransport}, as {@code eve replica} wires {@code
 * transport=rdma}). Under a closed-loop load: a fault of the fabric (failing posts, failing completions,
 * refused inline posts) lasts a while (every process degrades its pairs to the control channel, the
 * cluster keeps committing), the fault clears (the pairs return to rings), a process
 * is killed and restarted (its peers see a new incarnation and set up fresh rings with it), and at the end
 * every execution replica holds the same state, with every acknowledged add applied exactly once.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class QuorumOverRdmaIT {

    @Test
    void shouldRunTheCrashProfileOverRingsThroughFaultsAndARestart() throws Exception {
        run(QuorumConfig.crash(new int[] {0, 1, 2}, 0), 2, fabric -> fabric.failPosts(true));
    }

    @Test
    void shouldRunTheBftProfileOverRingsThroughFaultsAndARestart() throws Exception {
        // Every write completes with an error, as a queue pair whose peer stopped answering.
        run(
                QuorumConfig.bft(new int[] {0, 1, 2, 3}, 0),
                1,
                fabric -> fabric.faults((writer, owner, offset, length) -> Placement.drop()));
    }

    @Test
    void shouldRunTheCrashProfileOverRingsWhileInlinePostsAreRefused() throws Exception {
        run(QuorumConfig.crash(new int[] {0, 1, 2}, 0), 0, fabric -> fabric.refuseInline(true));
    }

    private static void run(QuorumConfig profile, int restarted, Consumer<InMemoryFabric> fault) throws Exception {
        QuorumConfig base = profile.withTimeouts(1_000_000_000L, 50_000_000L).withBatching(4, 16, 1_000_000L);
        try (Cluster cluster = new Cluster(base);
                Load load = new Load(cluster, 2)) {
            load.awaitProgress(40);
            assertThat(cluster.ringMessages()).as("messages through rings").isPositive();

            fault.accept(cluster.fabric);
            load.awaitProgress(40);
            QuorumOverRdmaIT.await(
                    "every process degraded a pair",
                    () -> cluster.live()
                            .allMatch(node -> cluster.rdma.transport(node).status().stream()
                                    .anyMatch(status -> status.degrades() > 0)));
            cluster.fabric.heal();
            QuorumOverRdmaIT.await("every pair back on rings", cluster::allRingsOpen);
            long ringBefore = cluster.ringMessages();
            load.awaitProgress(40);
            assertThat(cluster.ringMessages())
                    .as("messages through the fresh rings")
                    .isGreaterThan(ringBefore);

            cluster.kill(restarted);
            load.awaitProgress(40);
            cluster.start(restarted, true);
            QuorumOverRdmaIT.await("the restarted process's pairs on rings", cluster::allRingsOpen);
            load.awaitProgress(60);

            load.stop();
            int[] replicas = base.executionReplicas();
            cluster.awaitEqualStates(replicas);
            for (int replica : replicas) {
                load.assertState(cluster.apps[replica]);
            }
            assertThat(cluster.failures).isEmpty();
        }
    }

    /** The processes, their RDMA transports on one in-memory fabric, and the clients' network. */
    private static final class Cluster implements AutoCloseable {
        final InMemoryFabric fabric = new InMemoryFabric();
        final RdmaNodes rdma = new RdmaNodes(
                fabric::node,
                1 << 16,
                1024,
                builder -> builder.firstReprobeMillis(50).maxReprobeMillis(500));
        final LocalNetwork clients = new LocalNetwork();
        final QuorumConfig base;
        final ReplicaRuntime[] processes;
        final CounterApp[] apps;
        final boolean[] down;
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final List<EveClient> opened = new CopyOnWriteArrayList<>();
        private final MacKeys keys;
        private final Set<Integer> ids;

        Cluster(QuorumConfig base) {
            this.base = base;
            // MAC evidence, as deployed (signed evidence is off in ./eve replica, docs/quorum.md "Signed evidence").
            this.keys = MacKeys.insecureForTests(7, base.processes()).withoutSigning();
            this.ids = Arrays.stream(base.processes()).boxed().collect(Collectors.toSet());
            int count = base.processes().length;
            this.processes = new ReplicaRuntime[count];
            this.apps = new CounterApp[count];
            this.down = new boolean[count];
            for (int node = 0; node < count; node++) {
                start(node, false);
            }
        }

        void start(int node, boolean joining) {
            apps[node] = new CounterApp();
            Transport transport = new RoutedTransport(rdma.node(node), ids, clients.join(node));
            Evidence evidence = Evidence.PLAIN;
            if (base.r() >= 1) {
                Envelopes envelopes = new Envelopes(new Authenticator(keys, node), new FrameCodec(16 << 20));
                transport = new AuthenticatingTransport(transport, envelopes);
                evidence = new MacEvidence(envelopes);
            }
            processes[node] = ReplicaRuntime.builder()
                    .roles(QuorumRoles.of(base.withSelf(node), evidence))
                    .transport(transport)
                    .application(apps[node])
                    .mixer(KeyConflictMixer.unbounded())
                    .executorThreads(2)
                    .joining(joining)
                    .onFailure(failures::add)
                    .build();
            processes[node].start();
            down[node] = false;
        }

        void kill(int node) {
            down[node] = true;
            processes[node].close();
        }

        java.util.stream.Stream<Integer> live() {
            return Arrays.stream(base.processes()).filter(node -> !down[node]).boxed();
        }

        long ringMessages() {
            return live().mapToLong(node -> rdma.transport(node).status().stream()
                            .mapToLong(RdmaTransport.PeerStatus::sentByRing)
                            .sum())
                    .sum();
        }

        boolean allRingsOpen() {
            return live().allMatch(node -> live().filter(peer -> peer != node.intValue())
                    .allMatch(peer -> rdma.transport(node).ringOpen(peer)));
        }

        EveClient client(int id) {
            EveClient client = new EveClient(
                    clients.join(id),
                    ClientConfig.of(base.executionReplicas())
                            .withTimeouts(Duration.ofMillis(500), Duration.ofSeconds(40))
                            .withQuorumReplies(base.responseQuorum()));
            opened.add(client);
            return client;
        }

        void awaitEqualStates(int... nodes) {
            QuorumOverRdmaIT.await("equal committed states on " + Arrays.toString(nodes), () -> {
                ReplicaRuntime.StateSummary first = processes[nodes[0]].summary();
                return Arrays.stream(nodes)
                        .allMatch(node -> processes[node].summary().equals(first));
            });
        }

        @Override
        public void close() {
            opened.forEach(EveClient::close);
            for (int node = 0; node < processes.length; node++) {
                if (processes[node] != null && !down[node]) {
                    processes[node].close();
                }
            }
            clients.close();
            fabric.close();
        }
    }

    /** Closed-loop clients, each adding 1 to its own counter and checking every reply is its running total. */
    private static final class Load implements AutoCloseable {
        private final List<Thread> threads = new ArrayList<>();
        private final AtomicLong[] acknowledged;
        private final List<Throwable> errors = new CopyOnWriteArrayList<>();
        private volatile boolean stopped;

        Load(Cluster cluster, int clients) {
            acknowledged = new AtomicLong[clients];
            for (int c = 0; c < clients; c++) {
                acknowledged[c] = new AtomicLong();
                EveClient client = cluster.client(100 + c);
                int key = c;
                Thread thread = new Thread(() -> run(client, key), "load-" + c);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
        }

        private void run(EveClient client, int key) {
            try {
                while (!stopped) {
                    Reply reply = client.call(CounterApp.add(key, 1));
                    long value = Long.parseLong(new String(reply.payload(), StandardCharsets.UTF_8));
                    long expected = acknowledged[key].incrementAndGet();
                    if (value != expected) {
                        throw new AssertionError("client " + key + ": reply " + value + ", expected " + expected);
                    }
                }
            } catch (Throwable e) {
                errors.add(e);
            }
        }

        long total() {
            return Arrays.stream(acknowledged).mapToLong(AtomicLong::get).sum();
        }

        void awaitProgress(long more) {
            long target = total() + more;
            QuorumOverRdmaIT.await(target + " acknowledged adds (errors " + errors + ")", () -> total() >= target);
        }

        void stop() throws InterruptedException {
            stopped = true;
            for (Thread thread : threads) {
                thread.join(45_000);
            }
            assertThat(errors).as("client errors").isEmpty();
        }

        void assertState(CounterApp app) {
            for (int key = 0; key < acknowledged.length; key++) {
                Long value = app.counters.get((long) key);
                assertThat(value == null ? 0L : value).as("counter %d", key).isEqualTo(acknowledged[key].get());
            }
        }

        @Override
        public void close() {
            stopped = true;
        }
    }

    static void await(String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what, e);
            }
        }
    }
}
