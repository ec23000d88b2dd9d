package io.eve.verify.history;

import io.eve.Reply;
import io.eve.client.EveClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Closed-loop clients of a replicated counter map (the test {@code CounterApp}: "add:k:n" returns the new
 * value, "get:k" the current one) that send adds as ordered requests and gets through
 * {@link EveClient#read} (Eve §6's read-only optimisation), record every operation's invocation,
 * completion and result, and check each key's history for linearizability against a counter.
 */
public final class ReadWriteWorkload {
    /** An add of {@code amount}, or a read ({@code amount} 0). */
    public record Input(boolean read, long amount) {}

    private final List<EveClient> clients;
    private final long firstKey;
    private final int keys;
    private final Map<Long, List<Operation<Input, Long>>> histories = new TreeMap<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();

    /** Clients working on keys {@code firstKey} to {@code firstKey + keys - 1}, which must start at 0. */
    public ReadWriteWorkload(List<EveClient> clients, long firstKey, int keys) {
        this.clients = List.copyOf(clients);
        this.firstKey = firstKey;
        this.keys = keys;
        for (long key = firstKey; key < firstKey + keys; key++) {
            histories.put(key, new CopyOnWriteArrayList<>());
        }
    }

    /** Runs every client for {@code millis}, half reads and half adds of 1 on random keys. */
    public void run(long millis, long seed) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (int i = 0; i < clients.size(); i++) {
            int client = i;
            SplittableRandom random = new SplittableRandom(seed + i);
            Thread thread = new Thread(() -> loop(client, random, end), "workload-" + i);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private void loop(int client, SplittableRandom random, long end) {
        EveClient eve = clients.get(client);
        while (System.nanoTime() < end) {
            long key = firstKey + random.nextInt(keys);
            boolean read = random.nextBoolean();
            byte[] payload = (read ? "get:" + key : "add:" + key + ":1").getBytes(StandardCharsets.UTF_8);
            Function<byte[], CompletableFuture<Reply>> send = read ? eve::read : eve::submit;
            long invoked = System.nanoTime();
            Long output = null;
            try {
                Reply reply = send.apply(payload).get(30, TimeUnit.SECONDS);
                if (reply.error()) {
                    errors.add(reply.errorText());
                } else {
                    output = Long.parseLong(new String(reply.payload(), StandardCharsets.UTF_8));
                }
            } catch (Exception e) {
                errors.add(e.toString()); // an add may still have happened: it stays pending
            }
            if (output == null && read) {
                continue; // a read without an answer says nothing
            }
            long completed = output == null ? Operation.PENDING : System.nanoTime();
            histories.get(key).add(new Operation<>(client, invoked, completed, new Input(read, 1), output));
        }
    }

    /** Operations recorded, pending ones included. */
    public int operations() {
        return histories.values().stream().mapToInt(List::size).sum();
    }

    public List<String> errors() {
        return List.copyOf(errors);
    }

    /** The keys whose history is not linearizable (empty: all are). */
    public List<Long> violations() {
        List<Long> bad = new ArrayList<>();
        for (Map.Entry<Long, List<Operation<Input, Long>>> entry : histories.entrySet()) {
            if (!LinearizabilityChecker.check(entry.getValue(), new Counter()).linearizable()) {
                bad.add(entry.getKey());
            }
        }
        return bad;
    }

    /** A counter: an add returns the new value, a read the current one. */
    public static final class Counter implements Model<Long, Input, Long> {
        @Override
        public Long initial() {
            return 0L;
        }

        @Override
        public Long step(Long state, Input input, Long output) {
            if (input.read()) {
                return output != null && output.equals(state) ? state : null;
            }
            long next = state + input.amount();
            return output == null || output == next ? next : null;
        }
    }
}
