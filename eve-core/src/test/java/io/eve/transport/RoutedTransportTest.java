package io.eve.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.protocol.Message;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RoutedTransportTest {

    @Test
    void shouldSendReplicasOverOneTransportAndClientsOverTheOther() throws Exception {
        try (LocalNetwork fast = new LocalNetwork();
                LocalNetwork tcp = new LocalNetwork()) {
            RoutedTransport node = new RoutedTransport(fast.join(0), Set.of(0, 1), tcp.join(0));
            List<String> atPeer = new CopyOnWriteArrayList<>();
            List<String> atClient = new CopyOnWriteArrayList<>();
            List<String> atNode = new CopyOnWriteArrayList<>();
            Transport peerOnFast = fast.join(1);
            Transport peerOnTcp = tcp.join(1);
            Transport client = tcp.join(100);
            peerOnFast.start((from, message) -> atPeer.add("fast " + from));
            peerOnTcp.start((from, message) -> atPeer.add("tcp " + from));
            client.start((from, message) -> atClient.add("tcp " + from));
            node.start((from, message) ->
                    atNode.add(from + " " + message.getClass().getSimpleName()));

            node.send(1, new Message.Heartbeat(1, 0));
            node.send(100, new Message.Heartbeat(2, 0));
            peerOnFast.send(0, new Message.Heartbeat(3, 0));
            client.send(0, new Message.Heartbeat(4, 0));

            await(() -> atPeer.size() == 1 && atClient.size() == 1 && atNode.size() == 2);
            assertThat(atPeer).containsExactly("fast 0");
            assertThat(atClient).containsExactly("tcp 0");
            assertThat(atNode).containsExactlyInAnyOrder("1 Heartbeat", "100 Heartbeat");
            node.close();
        }
    }

    @Test
    void shouldRefuseTransportsOfDifferentNodes() {
        try (LocalNetwork network = new LocalNetwork()) {
            assertThatThrownBy(() -> new RoutedTransport(network.join(0), Set.of(0), network.join(1)))
                    .hasMessageContaining("same node");
        }
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("condition within 10 s").isNegative();
            Thread.sleep(5);
        }
    }
}
