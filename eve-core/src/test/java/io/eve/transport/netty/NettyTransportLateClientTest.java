package io.eve.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An answer to a client whose connection is not set up yet waits for it instead of being lost. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NettyTransportLateClientTest {
    @Test
    void shouldDeliverWhatWasSentToAClientBeforeItConnected() throws Exception {
        NettyTransport replica = NettyTransport.builder()
                .self(1)
                .listen(new InetSocketAddress("127.0.0.1", 0))
                .build();
        List<Message> atClient = new CopyOnWriteArrayList<>();
        NettyTransport client = null;
        try {
            replica.start((from, message) -> {});
            replica.send(100, new Message.Heartbeat(1, 1));
            replica.send(100, new Message.Heartbeat(2, 2));

            client = NettyTransport.builder()
                    .self(100)
                    .peers(Map.of(1, replica.boundAddress()))
                    .build();
            client.start((from, message) -> atClient.add(message));
            client.send(1, new Message.Heartbeat(0, 0)); // connects and names itself
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (atClient.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }

            assertThat(atClient).containsExactly(new Message.Heartbeat(1, 1), new Message.Heartbeat(2, 2));
        } finally {
            if (client != null) {
                client.close();
            }
            replica.close();
        }
    }
}
