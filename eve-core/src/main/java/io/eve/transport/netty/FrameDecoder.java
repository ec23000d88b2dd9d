package io.eve.transport.netty;

import io.eve.transport.wire.FrameCodec;
import io.eve.transport.wire.FrameException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts the byte stream into frames and decodes them with {@link FrameCodec}, which checks the header as
 * soon as it arrives and every length before allocating. A bad frame closes the connection with its
 * reason logged; nothing else is affected. So does a frame that has started and does not finish within
 * the frame timeout (a slow-loris peer holding a buffer open byte by byte): the clock runs while part
 * of a frame is waiting and restarts with every complete frame.
 *
 * <p>Runs on the channel's event loop; allocates nothing per frame but the decoded message.
 */
final class FrameDecoder extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);
    private static final int INITIAL_SCRATCH_BYTES = 4 * 1024;
    private static final int KEPT_SCRATCH_BYTES = 256 * 1024;
    private final NettyTransport transport;
    private final FrameCodec codec;
    private final long frameTimeoutMillis;
    private ScheduledFuture<?> deadline;
    private byte[] scratch = new byte[INITIAL_SCRATCH_BYTES];

    FrameDecoder(NettyTransport transport, FrameCodec codec, long frameTimeoutMillis) {
        this.transport = transport;
        this.codec = codec;
        this.frameTimeoutMillis = frameTimeoutMillis;
    }

    @Override
    protected void decode(ChannelHandlerContext context, ByteBuf in, List<Object> out) {
        while (in.isReadable()) {
            try {
                int available = in.readableBytes();
                int headerBytes = Math.min(available, FrameCodec.HEADER_BYTES);
                in.getBytes(in.readerIndex(), scratch, 0, headerBytes);
                int length = codec.completeFrameLength(scratch, 0, headerBytes, available);
                if (length == FrameCodec.INCOMPLETE) {
                    armDeadline(context);
                    return;
                }
                byte[] frame = length <= scratch.length ? scratch : newFrameBuffer(length);
                in.readBytes(frame, 0, length);
                out.add(codec.decode(frame, 0, length));
                cancelDeadline();
            } catch (FrameException e) {
                LOG.warn(
                        "closing the connection from {}: {} ({})",
                        context.channel().remoteAddress(),
                        e.getMessage(),
                        e.reason());
                in.skipBytes(in.readableBytes());
                transport.closed(NettyTransport.ClosedBecause.BAD_FRAME);
                context.close();
                return;
            }
        }
    }

    /**
     * Where a frame is copied to be decoded. Decoding copies out every field it keeps, so the array is reused
     * frame after frame; it grows up to {@link #KEPT_SCRATCH_BYTES}, and a larger frame (a state transfer)
     * gets an array of its own.
     */
    private byte[] newFrameBuffer(int length) {
        if (length > KEPT_SCRATCH_BYTES) {
            return new byte[length];
        }
        scratch = new byte[Math.max(length, Math.min(KEPT_SCRATCH_BYTES, scratch.length * 2))];
        return scratch;
    }

    private void armDeadline(ChannelHandlerContext context) {
        if (deadline != null) {
            return;
        }
        deadline = context.executor()
                .schedule(
                        () -> {
                            LOG.warn(
                                    "closing the connection from {}: a frame started and did not finish within {} ms",
                                    context.channel().remoteAddress(),
                                    frameTimeoutMillis);
                            transport.closed(NettyTransport.ClosedBecause.FRAME_TIMEOUT);
                            context.close();
                        },
                        frameTimeoutMillis,
                        TimeUnit.MILLISECONDS);
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext context) {
        cancelDeadline();
    }
}
