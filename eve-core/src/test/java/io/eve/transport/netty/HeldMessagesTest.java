package io.eve.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import org.junit.jupiter.api.Test;

class HeldMessagesTest {
    private static final long SECOND = 1_000_000_000L;
    private final HeldMessages held = new HeldMessages();

    private static Message heartbeat(int i) {
        return new Message.Heartbeat(i, i);
    }

    @Test
    void shouldHandOverEachNodesMessagesInOrderOnce() {
        held.hold(7, heartbeat(1), 0);
        held.hold(8, heartbeat(2), 0);
        held.hold(7, heartbeat(3), 0);

        assertThat(held.release(7, 1)).containsExactly(heartbeat(1), heartbeat(3));
        assertThat(held.release(7, 1)).isEmpty();
        assertThat(held.release(8, 1)).containsExactly(heartbeat(2));
    }

    @Test
    void shouldKeepOnlyTheNewestMessagesOfANode() {
        for (int i = 0; i < HeldMessages.MAX_PER_NODE + 10; i++) {
            held.hold(7, heartbeat(i), 0);
        }

        assertThat(held.release(7, 0))
                .hasSize(HeldMessages.MAX_PER_NODE)
                .startsWith(heartbeat(10))
                .endsWith(heartbeat(HeldMessages.MAX_PER_NODE + 9));
    }

    @Test
    void shouldDropANodesMessagesOnceTheFirstWaitedTooLong() {
        held.hold(7, heartbeat(1), 0);
        held.hold(8, heartbeat(2), SECOND);
        held.hold(7, heartbeat(3), SECOND);

        assertThat(held.release(7, HeldMessages.TTL_NANOS))
                .as("expired with its first message")
                .isEmpty();
        assertThat(held.release(8, HeldMessages.TTL_NANOS)).containsExactly(heartbeat(2));
    }

    @Test
    void shouldRefuseNewNodesPastTheLimitAndAcceptThemAgainAfterExpiry() {
        for (int node = 0; node < HeldMessages.MAX_NODES; node++) {
            assertThat(held.hold(node, heartbeat(node), 0)).isTrue();
        }

        assertThat(held.hold(-1, heartbeat(0), 1)).isFalse();
        assertThat(held.hold(0, heartbeat(1), 1))
                .as("a node already waiting may add more")
                .isTrue();
        assertThat(held.hold(-1, heartbeat(0), HeldMessages.TTL_NANOS)).isTrue();
        assertThat(held.nodes()).isEqualTo(1);
    }
}
