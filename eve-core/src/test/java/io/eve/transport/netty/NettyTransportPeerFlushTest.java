package io.eve.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import io.eve.transport.Transport;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Frames a replica's event loop sends to other replicas are held to the end of the loop's pass, so that what
 * one pass sends to a replica leaves in one flush (decision 0049); {@code flush()} sends them sooner, and a
 * frame sent from another thread is not held.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NettyTransportPeerFlushTest {
    private static final Message TRIGGER = new Message.Heartbeat(0, 0);
    private static final Message FIRST = new Message.Heartbeat(9, 1);
    private static final Message SECOND = new Message.Heartbeat(9, 2);

    @Test
    void shouldHoldFramesToAReplicaUntilTheTaskThatSentThemEnds() throws Exception {
        try (Pair pair = new Pair()) {
            CompletableFuture<Boolean> arrivedDuringTask = new CompletableFuture<>();
            pair.startOne((from, message) -> {
                if (!message.equals(TRIGGER) || arrivedDuringTask.isDone()) {
                    return;
                }
                pair.one.send(2, FIRST);
                pair.one.send(2, SECOND);
                try {
                    // Held to the end of this task: they cannot reach node 2 while it waits.
                    arrivedDuringTask.complete(pair.bothArrived.await(300, TimeUnit.MILLISECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    arrivedDuringTask.complete(true);
                }
            });
            pair.connect();

            pair.two.send(1, TRIGGER);

            assertThat(arrivedDuringTask.get(30, TimeUnit.SECONDS))
                    .as("a frame to a replica left before the event-loop task that sent it ended")
                    .isFalse();
            assertThat(pair.bothArrived.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(pair.atTwo).containsExactly(FIRST, SECOND);
        }
    }

    @Test
    void shouldSendHeldFramesToAReplicaWhenFlushed() throws Exception {
        try (Pair pair = new Pair()) {
            CompletableFuture<Boolean> arrivedDuringTask = new CompletableFuture<>();
            pair.startOne((from, message) -> {
                if (!message.equals(TRIGGER) || arrivedDuringTask.isDone()) {
                    return;
                }
                pair.one.send(2, FIRST);
                pair.one.send(2, SECOND);
                // As the runtime does before it executes a batch inline on this thread.
                pair.one.flush();
                try {
                    arrivedDuringTask.complete(pair.bothArrived.await(10, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    arrivedDuringTask.complete(false);
                }
            });
            pair.connect();

            pair.two.send(1, TRIGGER);

            assertThat(arrivedDuringTask.get(30, TimeUnit.SECONDS))
                    .as("both frames reached node 2 before the task that sent and flushed them ended")
                    .isTrue();
            assertThat(pair.atTwo).containsExactly(FIRST, SECOND);
        }
    }

    @Test
    void shouldKeepTheOrderOfFramesHeldOnTheLoopAndSentFromAnotherThread() throws Exception {
        try (Pair pair = new Pair()) {
            CountDownLatch fromOutside = new CountDownLatch(1);
            pair.startOne((from, message) -> {
                if (!message.equals(TRIGGER)) {
                    return;
                }
                pair.one.send(2, FIRST);
                fromOutside.countDown();
                // A frame another thread sends meanwhile goes behind the held one, whoever drains first.
                pair.awaitQuietly(pair.outsideSent);
            });
            pair.connect();
            Thread outside = new Thread(() -> {
                pair.awaitQuietly(fromOutside);
                pair.one.send(2, SECOND);
                pair.outsideSent.countDown();
            });
            outside.start();

            pair.two.send(1, TRIGGER);

            assertThat(pair.bothArrived.await(30, TimeUnit.SECONDS)).isTrue();
            outside.join();
            assertThat(pair.atTwo).containsExactly(FIRST, SECOND);
        }
    }

    /** Replicas 1 and 2 on 127.0.0.1, node 2 recording what node 1 sends it after {@link #connect}. */
    private static final class Pair implements AutoCloseable {
        final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
        final NettyTransport one = transport(1);
        final NettyTransport two = transport(2);
        final List<Message> atTwo = new CopyOnWriteArrayList<>();
        final CountDownLatch bothArrived = new CountDownLatch(2);
        final CountDownLatch outsideSent = new CountDownLatch(1);
        private final CountDownLatch linked = new CountDownLatch(1);

        NettyTransport transport(int id) {
            return NettyTransport.builder()
                    .self(id)
                    .listen(new InetSocketAddress("127.0.0.1", 0))
                    .peers(addresses::get)
                    .build();
        }

        void startOne(Transport.Receiver receiver) {
            one.start(receiver);
            addresses.put(1, one.boundAddress());
        }

        /** Starts node 2 and waits until node 1's link to it carried a frame (node 1 must be started). */
        void connect() throws InterruptedException {
            two.start((from, message) -> {
                if (message.equals(TRIGGER)) {
                    linked.countDown();
                    return;
                }
                atTwo.add(message);
                bothArrived.countDown();
            });
            addresses.put(2, two.boundAddress());
            // From this thread, not held: the link is up once node 2 has it (a dial holds the frame until then).
            one.send(2, TRIGGER);
            assertThat(linked.await(30, TimeUnit.SECONDS)).isTrue();
        }

        void awaitQuietly(CountDownLatch latch) {
            try {
                latch.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            one.close();
            two.close();
        }
    }
}
