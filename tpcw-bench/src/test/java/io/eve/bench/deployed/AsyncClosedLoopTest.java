package io.eve.bench.deployed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.samples.kv.KvRequest;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AsyncClosedLoopTest {
    @Test
    void thePayloadIsTheKeyValueStoresSeededUpdate() {
        for (long[] pair : new long[][] {{0, 0}, {999, -1}, {123_456_789L, Long.MIN_VALUE}, {7, 0x0102030405060708L}}) {
            assertThat(AsyncClosedLoop.seededUpdate(pair[0], pair[1]))
                    .isEqualTo(KvRequest.encode(new KvRequest.SeededUpdate(pair[0], pair[1])));
        }
    }

    /** Answers on its own thread; every tenth request is refused with an error. */
    private static final class FakeSystem implements AsyncClosedLoop.Target {
        final ExecutorService replier = Executors.newFixedThreadPool(2);
        final AtomicLong sent = new AtomicLong();
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger mostInFlight = new AtomicInteger();
        final Set<Integer> connections = ConcurrentHashMap.newKeySet();
        final CountDownLatch thousandSent = new CountDownLatch(1_000);
        volatile boolean badPayload;

        @Override
        public CompletableFuture<String> send(int connection, byte[] payload) {
            connections.add(connection);
            badPayload |= payload.length != 17 || payload[0] != 0x03;
            long n = sent.incrementAndGet();
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            thousandSent.countDown();
            return CompletableFuture.supplyAsync(
                    () -> {
                        inFlight.decrementAndGet();
                        return n % 10 == 0 ? "refused " + n : null;
                    },
                    replier);
        }

        @Override
        public void close() {
            replier.shutdownNow();
        }
    }

    @Test
    void keepsTheGivenNumberInFlightOverEveryConnectionAndCountsErrorsApart() throws Exception {
        try (FakeSystem system = new FakeSystem()) {
            AsyncClosedLoop loop = new AsyncClosedLoop(system, 3, 12, 1000, 1);
            loop.start();
            system.thousandSent.await();
            assertThat(loop.stop(60)).as("every slot drained").isTrue();
            AsyncClosedLoop.Interval whole = loop.interval();

            assertThat(system.badPayload).isFalse();
            assertThat(system.connections).containsExactlyInAnyOrder(0, 1, 2);
            assertThat(system.mostInFlight.get()).isLessThanOrEqualTo(12);
            long answered = system.sent.get();
            assertThat(whole.latencies().getTotalCount() + whole.errors()).isEqualTo(answered);
            assertThat(whole.errors()).isEqualTo(answered / 10);
            assertThat(loop.firstError()).startsWith("refused ");
        }
    }

    @Test
    void aSendThatThrowsCountsAsAnErrorAndTheLoopGoesOn() throws Exception {
        AtomicLong calls = new AtomicLong();
        CountDownLatch hundred = new CountDownLatch(100);
        AsyncClosedLoop.Target throwing = new AsyncClosedLoop.Target() {
            @Override
            public CompletableFuture<String> send(int connection, byte[] payload) {
                hundred.countDown();
                if (calls.incrementAndGet() % 2 == 0) {
                    throw new IllegalStateException("no connection");
                }
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public void close() {}
        };
        AsyncClosedLoop loop = new AsyncClosedLoop(throwing, 1, 2, 10, 1);
        loop.start();
        hundred.await();
        loop.stop(60);
        AsyncClosedLoop.Interval whole = loop.interval();

        assertThat(whole.errors()).isEqualTo(calls.get() / 2);
        assertThat(whole.latencies().getTotalCount()).isEqualTo(calls.get() - calls.get() / 2);
        assertThat(loop.firstError()).contains("no connection");
    }

    @Test
    void rejectsFewerSlotsThanConnections() {
        assertThatThrownBy(() -> new AsyncClosedLoop(new FakeSystem(), 4, 2, 10, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("4 connections, 2 outstanding");
    }
}
