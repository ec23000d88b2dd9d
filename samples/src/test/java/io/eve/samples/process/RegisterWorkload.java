package io.eve.samples.process;

import io.eve.EveException;
import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.config.ClusterConfig;
import io.eve.samples.kv.KvRequest;
import io.eve.verify.history.LinearizabilityChecker;
import io.eve.verify.history.Model;
import io.eve.verify.history.Operation;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Clients using a few objects of the key-value sample as read/write registers, recording every
 * operation's invocation, completion and result for the linearizability checker (Jepsen's register
 * workload). A write stores a value that names its writer and operation; a read answers the current
 * value, which names the write it came from (or the initial value, which names none). An operation that
 * fails (timeout, cluster unavailable) stays pending in the history: it may or may not have happened,
 * and its client continues as a new logical process, as the checker requires one operation at a time
 * per process.
 *
 * <p>Started and stopped by the test thread; counters may be read while it runs.
 */
final class RegisterWorkload {
    /** Marks a value written by this workload (anything else is an object's initial content). */
    private static final long MAGIC = 0x4556452d4c494e31L; // "EVE-LIN1"

    private final ConcurrentLinkedQueue<Operation<Input, Long>> history = new ConcurrentLinkedQueue<>();
    private final AtomicLong attempted = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private final int keys;
    private final int objectSize;
    private volatile boolean running = true;

    /** What an operation asked: a read of {@code key}, or a write of the value tagged {@code tag}. */
    record Input(int key, boolean write, long tag) {
        @Override
        public String toString() {
            return write ? "write(" + key + ", " + tag + ")" : "read(" + key + ")";
        }
    }

    private RegisterWorkload(int keys, int objectSize) {
        this.keys = keys;
        this.objectSize = objectSize;
    }

    /** Starts {@code clients} clients with node ids from {@code firstId} on objects {@code 0..keys-1}. */
    static RegisterWorkload start(Path config, int firstId, int clients, int keys, int objectSize) {
        ClusterConfig cluster = ClusterConfig.load(config);
        RegisterWorkload workload = new RegisterWorkload(keys, objectSize);
        for (int c = 0; c < clients; c++) {
            int id = firstId + c;
            Thread thread = new Thread(() -> workload.run(cluster, id, clients), "register-client-" + c);
            thread.setDaemon(true);
            workload.threads.add(thread);
        }
        workload.threads.forEach(Thread::start);
        return workload;
    }

    long acknowledged() {
        return acknowledged.get();
    }

    /** Stops the clients after their current operation. */
    void stop() throws InterruptedException {
        running = false;
        for (Thread thread : threads) {
            thread.join(90_000);
        }
    }

    /**
     * After {@link #stop}: reads every key once more with a fresh client {@code id} and adds the reads to the
     * history, so the check covers the final state (a lost acknowledged write shows as a final read of an older
     * value). Returns the tag each key holds, 0 for an initial value.
     *
     * @throws AssertionError naming the key whose read failed
     */
    long[] readFinalState(Path config, int id) {
        long[] tags = new long[keys];
        try (EveClient client = ProcessClients.connect(ClusterConfig.load(config), id, Duration.ofSeconds(30))) {
            for (int key = 0; key < keys; key++) {
                long invokedAt = System.nanoTime();
                Reply reply;
                try {
                    reply = client.call(KvRequest.encode(new KvRequest.Read(key)));
                } catch (EveException e) {
                    throw new AssertionError("the final read of key " + key + " failed: " + e.getMessage(), e);
                }
                if (reply.error()) {
                    throw new AssertionError("the final read of key " + key + " answered an error");
                }
                tags[key] = tagOf(reply.payload());
                history.add(new Operation<>(id, invokedAt, System.nanoTime(), new Input(key, false, 0), tags[key]));
            }
        }
        return tags;
    }

    /** Counts of the run and the verdict of the checker, one check per key (registers compose). */
    Report check() {
        Map<Integer, List<Operation<Input, Long>>> perKey = new HashMap<>();
        for (Operation<Input, Long> operation : history) {
            perKey.computeIfAbsent(operation.input().key(), k -> new ArrayList<>())
                    .add(operation);
        }
        List<String> violations = new ArrayList<>();
        int checked = 0;
        for (Map.Entry<Integer, List<Operation<Input, Long>>> entry : perKey.entrySet()) {
            LinearizabilityChecker.Result result = LinearizabilityChecker.check(entry.getValue(), new Register());
            checked += result.operations();
            if (!result.linearizable()) {
                violations.add("key " + entry.getKey() + ": not linearizable (" + result.operations()
                        + " operations, the longest linearizable prefix holds " + result.longestPrefix() + ")");
            }
        }
        return new Report(attempted.get(), acknowledged.get(), failed.get(), errors.get(), checked, violations);
    }

    /** What the run did and what the checker found. */
    record Report(long attempted, long acknowledged, long failed, long errors, int checked, List<String> violations) {
        @Override
        public String toString() {
            return String.format(
                    "%,d operations attempted, %,d acknowledged, %,d failed (pending in the history), %,d error"
                            + " replies, %,d checked, violations: %s",
                    attempted, acknowledged, failed, errors, checked, violations.isEmpty() ? "none" : violations);
        }
    }

    private void run(ClusterConfig cluster, int id, int clients) {
        SplittableRandom random = new SplittableRandom(id);
        // Logical process numbers: this client's own, then a fresh one after each failed operation.
        int process = id;
        long sequence = 0;
        try (EveClient client = ProcessClients.connect(cluster, id, Duration.ofSeconds(20))) {
            while (running) {
                int key = random.nextInt(keys);
                boolean write = random.nextBoolean();
                long tag = ((long) id << 32) | ++sequence;
                Input input = new Input(key, write, write ? tag : 0);
                byte[] payload = write
                        ? KvRequest.encode(new KvRequest.Update(key, value(tag)))
                        : KvRequest.encode(new KvRequest.Read(key));
                attempted.incrementAndGet();
                long invokedAt = System.nanoTime();
                Reply reply;
                try {
                    reply = client.call(payload);
                } catch (EveException e) {
                    failed.incrementAndGet();
                    // A read that never returned constrains nothing; a write may have happened or not.
                    if (write) {
                        history.add(new Operation<>(process, invokedAt, Operation.PENDING, input, null));
                    }
                    process += clients * 1_000;
                    continue;
                }
                long completedAt = System.nanoTime();
                acknowledged.incrementAndGet();
                if (reply.error()) {
                    // A deterministic rejection by the application (never expected here): it changed nothing.
                    errors.incrementAndGet();
                    continue;
                }
                long output = write ? tag : tagOf(reply.payload());
                history.add(new Operation<>(process, invokedAt, completedAt, input, output));
            }
        }
    }

    private byte[] value(long tag) {
        return ByteBuffer.allocate(objectSize).putLong(MAGIC).putLong(tag).array();
    }

    /** The tag of the write a read value came from; 0 for an initial value. */
    private static long tagOf(byte[] value) {
        if (value.length < 2 * Long.BYTES) {
            return 0;
        }
        ByteBuffer buffer = ByteBuffer.wrap(value);
        return buffer.getLong() == MAGIC ? buffer.getLong() : 0;
    }

    /**
     * A register holding the tag of the last write (0 at first). A write's output is its own tag (it
     * cannot fail); a read's output is the tag it saw.
     */
    static final class Register implements Model<Long, Input, Long> {
        @Override
        public Long initial() {
            return 0L;
        }

        @Override
        public Long step(Long state, Input input, Long output) {
            if (input.write()) {
                return input.tag();
            }
            return output == null || output.equals(state) ? state : null;
        }
    }
}
