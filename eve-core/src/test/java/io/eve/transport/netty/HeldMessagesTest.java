package io.eve.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeldMessagesTest {
    private static final long SECOND = 1_000_000_000L;
    private final HeldMessages held = new HeldMessages();

    private static byte[] frame(int i) {
        return new byte[] {(byte) i, (byte) (i >> 8)};
    }

    @Test
    void shouldHandOverEachNodesFramesInOrderOnce() {
        held.hold(7, frame(1), 0);
        held.hold(8, frame(2), 0);
        held.hold(7, frame(3), 0);

        assertThat(held.release(7, 1)).containsExactly(frame(1), frame(3));
        assertThat(held.release(7, 1)).isEmpty();
        assertThat(held.release(8, 1)).containsExactly(frame(2));
        assertThat(held.bytes()).isZero();
    }

    @Test
    void shouldKeepOnlyTheNewestFramesOfANode() {
        for (int i = 0; i < HeldMessages.MAX_PER_NODE + 10; i++) {
            held.hold(7, frame(i), 0);
        }

        assertThat(held.release(7, 0))
                .hasSize(HeldMessages.MAX_PER_NODE)
                .startsWith(frame(10))
                .endsWith(frame(HeldMessages.MAX_PER_NODE + 9));
    }

    @Test
    void shouldDropANodesFramesOnceTheFirstWaitedTooLong() {
        held.hold(7, frame(1), 0);
        held.hold(8, frame(2), SECOND);
        held.hold(7, frame(3), SECOND);

        assertThat(held.release(7, HeldMessages.TTL_NANOS))
                .as("expired with its first frame")
                .isEmpty();
        assertThat(held.release(8, HeldMessages.TTL_NANOS)).containsExactly(frame(2));
        assertThat(held.bytes()).isZero();
    }

    @Test
    void shouldRefuseNewNodesPastTheLimitAndAcceptThemAgainAfterExpiry() {
        for (int node = 0; node < HeldMessages.MAX_NODES; node++) {
            assertThat(held.hold(node, frame(node), 0)).isTrue();
        }

        assertThat(held.hold(-1, frame(0), 1)).isFalse();
        assertThat(held.hold(0, frame(1), 1))
                .as("a node already waiting may add more")
                .isTrue();
        assertThat(held.hold(-1, frame(0), HeldMessages.TTL_NANOS)).isTrue();
        assertThat(held.nodes()).isEqualTo(1);
    }

    @Test
    void shouldHoldNoMoreThanTheByteLimitInAll() {
        byte[] big = new byte[1 << 20];
        int fitted = 0;
        for (int node = 0; node < 32; node++) {
            if (held.hold(node, big, 0)) {
                fitted++;
            }
        }

        assertThat(fitted).isEqualTo((int) (HeldMessages.MAX_BYTES / big.length));
        assertThat(held.bytes()).isLessThanOrEqualTo(HeldMessages.MAX_BYTES);
        held.release(0, 0);
        assertThat(held.hold(99, big, 0))
                .as("room again once a node took its frames")
                .isTrue();
    }
}
