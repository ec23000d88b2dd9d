package io.eve.verify.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.verify.primarybackup.CounterApp;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-loop clients, each adding 1 to its own counter: client {@code c} of the load owns key {@code c}.
 * Each reply must be the client's own running total (exactly-once), so the final counter equals the
 * number of acknowledged adds.
 */
final class CounterLoad implements AutoCloseable {
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong[] acknowledged;
    final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private volatile boolean stopped;

    CounterLoad(QuorumCluster cluster, int clients) {
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
        long sum = 0;
        for (AtomicLong count : acknowledged) {
            sum += count.get();
        }
        return sum;
    }

    /** Waits until the clients together got {@code more} further replies. */
    void awaitProgress(long more) {
        long target = total() + more;
        QuorumCluster.await(target + " acknowledged adds (errors " + errors + ")", () -> total() >= target);
    }

    /** Stops the clients after their current request and checks that none failed. */
    void stop() throws InterruptedException {
        stopped = true;
        for (Thread thread : threads) {
            thread.join(45_000);
        }
        assertThat(errors).as("client errors").isEmpty();
    }

    /** No acknowledged write lost, none applied twice: every counter equals its client's acknowledged adds. */
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
