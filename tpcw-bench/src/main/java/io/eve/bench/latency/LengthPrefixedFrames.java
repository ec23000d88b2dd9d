package io.eve.bench.latency;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The ping-pong's framing: a 4-byte length and that many bytes. Like Eve's frame decoder, it waits for a
 * whole frame and copies it, length field included, into its own array, so the baseline pays the same
 * per-message buffer work short of the checksum and the message decoding.
 *
 * <p>One instance per channel, called on its event loop.
 */
final class LengthPrefixedFrames extends ByteToMessageDecoder {
    static final int MAX_BODY_BYTES = 1 << 16;

    /** A frame carrying {@code bodyBytes} bytes of zeros. */
    static byte[] newFrame(int bodyBytes) {
        return ByteBuffer.allocate(Integer.BYTES + bodyBytes).putInt(bodyBytes).array();
    }

    @Override
    protected void decode(ChannelHandlerContext context, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= Integer.BYTES) {
            int body = in.getInt(in.readerIndex());
            if (body < 0 || body > MAX_BODY_BYTES) {
                throw new IllegalStateException("a ping frame of " + body + " bytes; at most " + MAX_BODY_BYTES);
            }
            if (in.readableBytes() < Integer.BYTES + body) {
                return;
            }
            byte[] frame = new byte[Integer.BYTES + body];
            in.readBytes(frame);
            out.add(frame);
        }
    }
}
