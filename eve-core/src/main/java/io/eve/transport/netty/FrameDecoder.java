package io.eve.transport.netty;

import io.eve.transport.wire.FrameCodec;
import io.eve.transport.wire.FrameException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts the byte stream into frames and decodes them with {@link FrameCodec}, which checks the header as
 * soon as it arrives and every length before allocating. A bad frame closes the connection with its
 * reason logged; nothing else is affected.
 */
final class FrameDecoder extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);
    private final FrameCodec codec;

    FrameDecoder(FrameCodec codec) {
        this.codec = codec;
    }

    @Override
    protected void decode(ChannelHandlerContext context, ByteBuf in, List<Object> out) {
        while (in.isReadable()) {
            try {
                int length = codec.completeFrameLength(in.nioBuffer(in.readerIndex(), in.readableBytes()));
                if (length == FrameCodec.INCOMPLETE) {
                    return;
                }
                byte[] frame = new byte[length];
                in.readBytes(frame);
                out.add(codec.decode(frame));
            } catch (FrameException e) {
                LOG.warn(
                        "closing the connection from {}: {} ({})",
                        context.channel().remoteAddress(),
                        e.getMessage(),
                        e.reason());
                in.skipBytes(in.readableBytes());
                context.close();
                return;
            }
        }
    }
}
