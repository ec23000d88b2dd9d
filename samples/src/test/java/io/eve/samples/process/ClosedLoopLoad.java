package io.eve.samples.process;

import io.eve.EveException;
import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.config.ClusterConfig;
import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.KvRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-loop clients, each a separate {@link EveClient} over TCP, updating random objects of their own
 * share of the store. Every acknowledged update must return the object's previous version plus one: a
 * lost write shows as a version that repeats, a write applied twice as one that skips. Anything else
 * counts as wrong, with a description kept for the failure message.
 *
 * <p>Counters are read from the test thread while the client threads run; {@link #stop()} is for the
 * test thread, and a test calls it in a {@code finally} block.
 */
final class ClosedLoopLoad {
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong wrong = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    private ClosedLoopLoad() {}

    /** Starts {@code clients} clients with ids from {@code firstId} on a store of {@code objects} objects. */
    static ClosedLoopLoad start(Path config, int firstId, int clients, int objects) {
        ClusterConfig cluster = ClusterConfig.load(config);
        ClosedLoopLoad load = new ClosedLoopLoad();
        for (int share = 0; share < clients; share++) {
            Client client = load.new Client(cluster, firstId + share, share, clients, objects);
            Thread thread = new Thread(client::run, "load-client-" + share);
            thread.setDaemon(true);
            load.threads.add(thread);
        }
        load.threads.forEach(Thread::start);
        return load;
    }

    long acknowledged() {
        return acknowledged.get();
    }

    /** Waits until at least {@code count} updates are acknowledged in all. */
    void awaitAcknowledged(long count, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (acknowledged.get() < count) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("only " + acknowledged.get() + " updates acknowledged, expected " + count
                        + " within " + limit + "; " + summary());
            }
            Thread.sleep(20);
        }
    }

    /** Stops the clients after their current request and returns what they saw. */
    Result stop() throws InterruptedException {
        running = false;
        for (Thread thread : threads) {
            thread.join(70_000);
        }
        return new Result(acknowledged.get(), wrong.get(), failed.get(), List.copyOf(problems));
    }

    private String summary() {
        return "wrong " + wrong.get() + ", failed " + failed.get() + ", first problems " + List.copyOf(problems);
    }

    /** Counts at the end of a run and the first problems seen. */
    record Result(long acknowledged, long wrong, long failed, List<String> problems) {}

    /** One client thread: its objects are those whose id is {@code share} modulo the number of clients. */
    private final class Client {
        private final ClusterConfig cluster;
        private final int id;
        private final int share;
        private final int stride;
        private final long[] versions;
        private final boolean[] uncertain;

        Client(ClusterConfig cluster, int id, int share, int stride, int objects) {
            this.cluster = cluster;
            this.id = id;
            this.share = share;
            this.stride = stride;
            this.versions = new long[objects / stride];
            this.uncertain = new boolean[versions.length];
        }

        void run() {
            SplittableRandom random = new SplittableRandom(id);
            try (EveClient client = ProcessClients.connect(cluster, id, Duration.ofSeconds(60))) {
                while (running) {
                    int slot = random.nextInt(versions.length);
                    update(client, slot, random.nextLong());
                }
            }
        }

        private void update(EveClient client, int slot, long seed) {
            long object = (long) slot * stride + share;
            Reply reply;
            try {
                reply = client.call(KvRequest.encode(new KvRequest.SeededUpdate(object, seed)));
            } catch (EveException e) {
                // Applied or not, nobody knows: the next acknowledged version may skip one.
                failed.incrementAndGet();
                uncertain[slot] = true;
                report("client " + id + ": update of object " + object + " failed: " + e);
                return;
            }
            acknowledged.incrementAndGet();
            if (reply.error()) {
                wrong.incrementAndGet();
                report("client " + id + ": object " + object + " answered with an error: " + reply.errorText());
                return;
            }
            long version = KeyValueStore.versionOf(reply.payload());
            long previous = versions[slot];
            boolean expected = uncertain[slot] ? version > previous : version == previous + 1;
            if (!expected) {
                wrong.incrementAndGet();
                report("client " + id + ": object " + object + " went from version " + previous + " to " + version);
            }
            versions[slot] = Math.max(previous, version);
            uncertain[slot] = false;
        }

        private void report(String problem) {
            if (problems.size() < 10) {
                problems.add(problem);
            }
        }
    }
}
