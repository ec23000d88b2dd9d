package io.eve.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RegionDescriptorTest {

    @Test
    void shouldRoundTripThroughItsEncoding() {
        RegionDescriptor descriptor = new RegionDescriptor("10.0.0.7:7471", 0x7f00_1234_5000L, 1 << 20, 730, 3);
        byte[] bytes = descriptor.encode();
        assertThat(bytes).hasSize(descriptor.encodedSize());
        assertThat(RegionDescriptor.decode(ByteBuffer.wrap(bytes))).isEqualTo(descriptor);
    }

    @Test
    void shouldRefuseATruncatedDescriptorNamingWhatIsMissing() {
        byte[] bytes = new RegionDescriptor("mem:1", 0, 64, 1, 1).encode();
        assertThatThrownBy(() -> RegionDescriptor.decode(ByteBuffer.wrap(Arrays.copyOf(bytes, bytes.length - 1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs 29 more bytes, got 28");
        assertThatThrownBy(() -> RegionDescriptor.decode(ByteBuffer.allocate(0)))
                .hasMessageContaining("at least 1 byte");
    }

    @Test
    void shouldRefuseANonPositiveLength() {
        assertThatThrownBy(() -> new RegionDescriptor("mem:1", 0, 0, 1, 1)).hasMessageContaining("positive");
    }
}
