package io.eve.samples.cluster;

import io.eve.Reply;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.protocol.Message;
import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.KvRequest;
import io.eve.samples.kv.WorkKind;
import io.eve.transport.LocalNetwork;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.PrimaryBackupRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The README's main job: a primary-backup pair of the Eve §7.2 key-value store running in this JVM,
 * under load from concurrent clients, through the faults Eve handles: a divergence (a corrupted token)
 * rolled back and re-executed sequentially, a primary crash with the backup taking over, and the old
 * primary's return by incremental state transfer. Prints progress every second and a result line; exits
 * non-zero if the replicas end up disagreeing or a client saw a wrong reply.
 */
public final class ClusterDemo {
    private final Settings settings;
    private final PrintStream out;
    private final LocalNetwork network = new LocalNetwork();
    private final ReplicaRuntime[] replicas = new ReplicaRuntime[2];
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong wrongReplies = new AtomicLong();
    private final AtomicBoolean corruptNextToken = new AtomicBoolean();
    private final AtomicLong transferBytes = new AtomicLong();

    /** What the demo runs: the store's shape, the load, and when each fault happens. */
    record Settings(int objects, int objectSize, long workMicros, int executorThreads, int clients, Duration phase) {}

    ClusterDemo(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        Settings settings = new Settings(10_000, 1024, 200, 8, 16, Duration.ofSeconds(2));
        boolean ok = new ClusterDemo(settings, System.out).run();
        System.exit(ok ? 0 : 1);
    }

    /** Runs the demo; returns whether every check held. */
    boolean run() throws Exception {
        out.printf(
                "Eve for the JVM: primary-backup cluster of a key-value store (%,d objects of %d B, %d us of"
                        + " blocking work per request, %d executor threads per replica, %d clients)%n",
                settings.objects(),
                settings.objectSize(),
                settings.workMicros(),
                settings.executorThreads(),
                settings.clients());
        network.setFirewall(this::inject);
        start(0, false);
        start(1, false);
        List<Thread> clients = startClients();
        try {
            phase("normal operation");
            out.println("-- injecting a divergence: the backup's next token is corrupted in flight");
            corruptNextToken.set(true);
            phase("after the divergence");
            out.println("-- crashing the primary (node 0)");
            replicas[0].close();
            phase("after the crash");
            out.println("-- restarting node 0 with empty state: it rejoins by state transfer");
            start(0, true);
            phase("after the rejoin");
        } finally {
            clients.forEach(Thread::interrupt);
            for (Thread client : clients) {
                client.join(10_000);
            }
        }
        return report();
    }

    private void start(int node, boolean joining) {
        KeyValueStore store = KeyValueStore.builder()
                .objects(settings.objects())
                .objectSize(settings.objectSize())
                .workMicros(settings.workMicros())
                .workKind(WorkKind.BLOCKING)
                .build();
        replicas[node] = ReplicaRuntime.builder()
                .roles(PrimaryBackupRoles.of(
                        PrimaryBackupConfig.of(0, 1, node).withTimeouts(50_000_000L, 1_000_000_000L)))
                .transport(network.join(node))
                .application(store)
                .mixer(KeyConflictMixer.unbounded())
                .executorThreads(settings.executorThreads())
                .joining(joining)
                .onFailure(failures::add)
                .build();
        replicas[node].start();
    }

    /** The fault injector: corrupts one token on its way to the primary when asked; measures transfers. */
    private Message inject(int from, int to, Message message) {
        if (message instanceof Message.BatchToken token && corruptNextToken.compareAndSet(true, false)) {
            Token honest = token.token();
            Token forged = Token.of(honest.seq(), Digest.ZERO, honest.replyDigest(), honest.previous());
            return new Message.BatchToken(token.view(), token.epoch(), forged);
        }
        if (message instanceof Message.StateTransfer transfer) {
            transferBytes.addAndGet(transfer.delta().size());
        }
        return message;
    }

    private List<Thread> startClients() {
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < settings.clients(); c++) {
            int id = 1000 + c;
            Thread thread = new Thread(() -> runClient(id), "demo-client-" + id);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        return threads;
    }

    /**
     * One client: updates random objects of its own share of the store (every {@code clients}-th object)
     * and checks that each object's version grows by exactly one per acknowledged update: a lost or
     * doubly applied write shows as a wrong reply.
     */
    private void runClient(int id) {
        SplittableRandom random = new SplittableRandom(id);
        int share = id - 1000;
        int owned = settings.objects() / settings.clients();
        long[] versions = new long[owned];
        ClientConfig config = ClientConfig.of(0, 1).withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(30));
        try (EveClient client = new EveClient(network.join(id), config)) {
            while (!Thread.currentThread().isInterrupted()) {
                int slot = random.nextInt(owned);
                long object = (long) slot * settings.clients() + share;
                Reply written = client.call(KvRequest.encode(new KvRequest.SeededUpdate(object, random.nextLong())));
                if (written.error() || KeyValueStore.versionOf(written.payload()) != versions[slot] + 1) {
                    wrongReplies.incrementAndGet();
                }
                versions[slot]++;
                acknowledged.incrementAndGet();
            }
        } catch (RuntimeException e) {
            if (!Thread.currentThread().isInterrupted() && !(e.getCause() instanceof InterruptedException)) {
                failures.add(e);
            }
        }
    }

    private void phase(String name) throws InterruptedException {
        long end = System.nanoTime() + settings.phase().toNanos();
        long before = acknowledged.get();
        long started = System.nanoTime();
        while (System.nanoTime() < end) {
            Thread.sleep(Math.min(1000, settings.phase().toMillis()));
            long now = acknowledged.get();
            double seconds = (System.nanoTime() - started) / 1e9;
            out.printf(
                    "   %-22s %,8d requests committed, %,7.0f/s | %s%n", name, now, (now - before) / seconds, status());
        }
    }

    private String status() {
        StringBuilder line = new StringBuilder();
        for (int node = 0; node < 2; node++) {
            ReplicaRuntime replica = replicas[node];
            if (replica == null || replica.failed()) {
                line.append(" node ").append(node).append(": down");
                continue;
            }
            try {
                line.append(" node ")
                        .append(node)
                        .append(replica.isPrimary() ? " primary" : " backup")
                        .append(" @")
                        .append(replica.committed())
                        .append(" rollbacks ")
                        .append(replica.metrics().rollbacks());
            } catch (io.eve.ReplicaClosedException | IllegalStateException stopped) {
                line.append(" node ").append(node).append(": down");
            }
        }
        return line.toString().trim();
    }

    private boolean report() throws InterruptedException {
        ReplicaRuntime primary = replicas[1];
        ReplicaRuntime rejoined = replicas[0];
        // Read each replica's committed state on its own stage thread, and wait until both stand on the same batch.
        ReplicaRuntime.StateSummary first = primary.summary();
        ReplicaRuntime.StateSummary second = rejoined.summary();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (first.stableSeq() != second.stableSeq() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            first = primary.summary();
            second = rejoined.summary();
        }
        long seq = first.stableSeq();
        Digest primaryRoot = first.stableRoot();
        boolean agree = first.equals(second);
        long rollbacks = replicas[1].metrics().rollbacks();
        out.printf(
                "RESULT: %,d requests committed and acknowledged, %d wrong replies, %d rollback(s) after the"
                        + " corrupted token, failover to node 1 in view %d, node 0 caught up with %,d bytes of"
                        + " transfer; at batch %d both replicas have root %s: %s%n",
                acknowledged.get(),
                wrongReplies.get(),
                rollbacks + replicas[0].metrics().rollbacks(),
                primary.view(),
                transferBytes.get(),
                seq,
                primaryRoot,
                agree ? "agree" : "DISAGREE");
        failures.forEach(failure -> out.println("failure: " + failure));
        for (ReplicaRuntime replica : replicas) {
            replica.close();
        }
        network.close();
        return agree && wrongReplies.get() == 0 && failures.isEmpty();
    }
}
