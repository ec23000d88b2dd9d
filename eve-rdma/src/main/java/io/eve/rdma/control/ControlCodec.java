package io.eve.rdma.control;

import io.eve.rdma.RegionDescriptor;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Bytes of a {@link ControlFrame}: {@code byte type | body}. Decoding treats its input as hostile: every
 * length is checked against what remains, and any malformation is an {@link IllegalArgumentException}
 * naming it. Stateless.
 */
final class ControlCodec {
    private static final byte HELLO = 1;
    private static final byte DESCRIPTOR = 2;
    private static final byte DATA = 3;
    private static final byte ACK = 4;
    private static final byte DEGRADE = 5;

    private ControlCodec() {}

    static byte[] encode(ControlFrame frame) {
        if (frame instanceof ControlFrame.Hello hello) {
            return ByteBuffer.allocate(21)
                    .put(HELLO)
                    .putInt(hello.node())
                    .putLong(hello.incarnation())
                    .putLong(hello.firstSeq())
                    .array();
        }
        if (frame instanceof ControlFrame.Descriptor descriptor) {
            byte[] region = descriptor.region().encode();
            return ByteBuffer.allocate(9 + region.length)
                    .put(DESCRIPTOR)
                    .putLong(descriptor.generation())
                    .put(region)
                    .array();
        }
        if (frame instanceof ControlFrame.Data data) {
            return ByteBuffer.allocate(9 + data.frame().length)
                    .put(DATA)
                    .putLong(data.seq())
                    .put(data.frame())
                    .array();
        }
        if (frame instanceof ControlFrame.Ack ack) {
            return ByteBuffer.allocate(9).put(ACK).putLong(ack.seq()).array();
        }
        ControlFrame.Degrade degrade = (ControlFrame.Degrade) frame;
        byte[] reason = degrade.reason().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(9 + reason.length)
                .put(DEGRADE)
                .putLong(degrade.generation())
                .put(reason)
                .array();
    }

    static ControlFrame decode(ByteBuffer in) {
        if (!in.hasRemaining()) {
            throw new IllegalArgumentException("an empty control frame");
        }
        byte type = in.get();
        switch (type) {
            case HELLO:
                need(in, 20, "hello");
                return new ControlFrame.Hello(in.getInt(), in.getLong(), in.getLong());
            case DESCRIPTOR:
                need(in, 8, "descriptor");
                long generation = in.getLong();
                return new ControlFrame.Descriptor(RegionDescriptor.decode(in), generation);
            case DATA:
                need(in, 8, "data");
                long seq = in.getLong();
                byte[] frame = new byte[in.remaining()];
                in.get(frame);
                return new ControlFrame.Data(seq, frame);
            case ACK:
                need(in, 8, "ack");
                return new ControlFrame.Ack(in.getLong());
            case DEGRADE:
                need(in, 8, "degrade");
                long degraded = in.getLong();
                byte[] reason = new byte[in.remaining()];
                in.get(reason);
                return new ControlFrame.Degrade(degraded, new String(reason, StandardCharsets.UTF_8));
            default:
                throw new IllegalArgumentException("unknown control frame type " + type);
        }
    }

    private static void need(ByteBuffer in, int bytes, String what) {
        if (in.remaining() < bytes) {
            throw new IllegalArgumentException(
                    "a " + what + " frame needs " + bytes + " more bytes, got " + in.remaining());
        }
    }
}
