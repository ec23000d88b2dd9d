package io.eve.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Replies to a client are held until the end of the event-loop task that sent them, so that a commit's
 * replies leave with one flush (decision 0042); {@code flush()} sends them before the task goes on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NettyTransportReplyFlushTest {
    private static final int CLIENT = 100;

    @Test
    void shouldSendFlushedRepliesWhileTheTaskThatSentThemStillRuns() throws Exception {
        CountDownLatch bothArrived = new CountDownLatch(2);
        CompletableFuture<Boolean> arrivedDuringTask = new CompletableFuture<>();
        NettyTransport replica = NettyTransport.builder()
                .self(1)
                .listen(new InetSocketAddress("127.0.0.1", 0))
                .build();
        List<Message> atClient = new CopyOnWriteArrayList<>();
        NettyTransport client = null;
        try {
            replica.start((from, message) -> {
                if (from != CLIENT || arrivedDuringTask.isDone()) {
                    return;
                }
                replica.send(CLIENT, new Message.Heartbeat(7, 1));
                replica.send(CLIENT, new Message.Heartbeat(7, 2));
                replica.flush();
                // The task goes on (as a replica executing its next batch inline would) and waits for the
                // client to have both replies: held to the end of this task, they would arrive only after.
                try {
                    arrivedDuringTask.complete(bothArrived.await(10, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    arrivedDuringTask.complete(false);
                }
            });
            client = connectedClient(replica, atClient, bothArrived);

            assertThat(arrivedDuringTask.get(30, TimeUnit.SECONDS))
                    .as("both replies reached the client before the task that sent them ended")
                    .isTrue();
            assertThat(atClient).containsExactly(new Message.Heartbeat(7, 1), new Message.Heartbeat(7, 2));
        } finally {
            if (client != null) {
                client.close();
            }
            replica.close();
        }
    }

    @Test
    void shouldSendHeldRepliesAtTheEndOfTheTaskWithoutAFlush() throws Exception {
        CountDownLatch bothArrived = new CountDownLatch(2);
        NettyTransport replica = NettyTransport.builder()
                .self(1)
                .listen(new InetSocketAddress("127.0.0.1", 0))
                .build();
        List<Message> atClient = new CopyOnWriteArrayList<>();
        NettyTransport client = null;
        try {
            replica.start((from, message) -> {
                if (from == CLIENT && message.equals(new Message.Heartbeat(0, 0))) {
                    replica.send(CLIENT, new Message.Heartbeat(8, 1));
                    replica.send(CLIENT, new Message.Heartbeat(8, 2));
                }
            });
            client = connectedClient(replica, atClient, bothArrived);

            assertThat(bothArrived.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(atClient).containsExactly(new Message.Heartbeat(8, 1), new Message.Heartbeat(8, 2));
        } finally {
            if (client != null) {
                client.close();
            }
            replica.close();
        }
    }

    /** A client of {@code replica} that records what it receives and says hello with {@code Heartbeat(0, 0)}. */
    private static NettyTransport connectedClient(
            NettyTransport replica, List<Message> atClient, CountDownLatch arrivals) {
        NettyTransport client = NettyTransport.builder()
                .self(CLIENT)
                .peers(Map.of(1, replica.boundAddress()))
                .build();
        client.start((from, message) -> {
            atClient.add(message);
            arrivals.countDown();
        });
        client.send(1, new Message.Heartbeat(0, 0));
        return client;
    }
}
