package io.eve.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.nio.NioIoHandler;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The outbox writes a burst of frames in order with one flush, whatever their sizes and senders. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OutboxTest {
    /** Counts the flushes that reach the channel. */
    private static final class FlushCounter extends ChannelOutboundHandlerAdapter {
        int flushes;

        @Override
        public void flush(ChannelHandlerContext context) {
            flushes++;
            context.flush();
        }
    }

    private static byte[] frame(int length, int tag) {
        byte[] frame = new byte[length];
        Arrays.fill(frame, (byte) tag);
        return frame;
    }

    private static byte[] written(EmbeddedChannel channel) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (ByteBuf buffer = channel.readOutbound(); buffer != null; buffer = channel.readOutbound()) {
            byte[] bytes = new byte[buffer.readableBytes()];
            buffer.readBytes(bytes);
            buffer.release();
            all.writeBytes(bytes);
        }
        return all.toByteArray();
    }

    @Test
    void shouldWriteEveryFrameOfABurstFromAnotherThreadInOrderWithOneFlush() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            FlushCounter counter = new FlushCounter();
            // The outbox drains on a real event loop, held busy while this thread adds the frames, so that
            // they form one burst.
            EmbeddedChannel channel = new EmbeddedChannel(counter);
            EventLoop loop = group.next();
            Outbox outbox = new Outbox(channel, loop);
            CountDownLatch release = new CountDownLatch(1);
            loop.execute(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            // Small frames share a buffer; one beyond the copy limit goes as it is, between them; enough small
            // ones to need a second burst buffer.
            int[] lengths = {40, 60, Outbox.COPY_LIMIT + 1, 70, Outbox.COPY_LIMIT, Outbox.COPY_LIMIT, 5};
            for (int i = 0; i < lengths.length; i++) {
                byte[] frame = frame(lengths[i], i + 1);
                outbox.add(frame);
                expected.writeBytes(frame);
            }
            release.countDown();
            loop.submit(() -> {}).get(10, TimeUnit.SECONDS);

            assertThat(counter.flushes).isEqualTo(1);
            assertThat(written(channel)).isEqualTo(expected.toByteArray());
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void shouldWriteAtOnceWhenTheSenderIsTheEventLoop() {
        FlushCounter counter = new FlushCounter();
        EmbeddedChannel channel = new EmbeddedChannel(counter);
        Outbox outbox = new Outbox(channel, channel.eventLoop());
        outbox.add(frame(10, 1));
        assertThat(counter.flushes).as("written before add returns").isEqualTo(1);
        outbox.add(frame(20, 2));
        assertThat(counter.flushes).isEqualTo(2);

        byte[] expected = new byte[30];
        Arrays.fill(expected, 0, 10, (byte) 1);
        Arrays.fill(expected, 10, 30, (byte) 2);
        assertThat(written(channel)).isEqualTo(expected);
    }

    /** Replies to a client: the event loop's own frames wait for the end of its task, then go with one flush. */
    @Test
    void shouldWriteDeferredFramesOfOneEventLoopTaskWithOneFlushAfterIt() {
        FlushCounter counter = new FlushCounter();
        EmbeddedChannel channel = new EmbeddedChannel(counter);
        Outbox outbox = new Outbox(channel, channel.eventLoop());
        outbox.addDeferred(frame(10, 1));
        outbox.addDeferred(frame(20, 2));
        outbox.addDeferred(frame(5, 3));
        assertThat(counter.flushes)
                .as("nothing written while the sender's task runs")
                .isZero();
        channel.runPendingTasks();
        assertThat(counter.flushes).isEqualTo(1);

        byte[] expected = new byte[35];
        Arrays.fill(expected, 0, 10, (byte) 1);
        Arrays.fill(expected, 10, 30, (byte) 2);
        Arrays.fill(expected, 30, 35, (byte) 3);
        assertThat(written(channel)).isEqualTo(expected);
        channel.runPendingTasks();
        assertThat(counter.flushes).as("the drain ran once").isEqualTo(1);
    }

    /** Listed on its event loop, an outbox's deferred frames leave with one flush as soon as it is drained early. */
    @Test
    void shouldDrainDeferredFramesEarlyOnceListed() {
        FlushCounter counter = new FlushCounter();
        EmbeddedChannel channel = new EmbeddedChannel(counter);
        Outbox outbox = new Outbox(channel, channel.eventLoop());
        outbox.addDeferred(frame(2, 1));
        assertThat(outbox.listForEarlyDrain()).isTrue();
        outbox.addDeferred(frame(3, 2));
        assertThat(outbox.listForEarlyDrain()).as("listed once until drained").isFalse();

        outbox.drainEarly();
        assertThat(counter.flushes).isEqualTo(1);
        assertThat(written(channel)).isEqualTo(new byte[] {1, 1, 2, 2, 2});
        channel.runPendingTasks();
        assertThat(counter.flushes)
                .as("the scheduled drain finds nothing to flush")
                .isEqualTo(1);
        assertThat(outbox.listForEarlyDrain())
                .as("listed again after the drain")
                .isTrue();
    }

    /** Only the outbox's own event loop lists it: elsewhere its scheduled drain is the early one. */
    @Test
    void shouldNotListAnOutboxFromAnotherThread() {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Outbox outbox = new Outbox(new EmbeddedChannel(), group.next());
            assertThat(outbox.listForEarlyDrain()).isFalse();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** A frame added at once after deferred ones keeps the order: it drains them first. */
    @Test
    void shouldKeepTheOrderWhenAnImmediateFrameFollowsDeferredOnes() {
        EmbeddedChannel channel = new EmbeddedChannel();
        Outbox outbox = new Outbox(channel, channel.eventLoop());
        outbox.addDeferred(frame(3, 1));
        outbox.add(frame(4, 2));
        channel.runPendingTasks();
        assertThat(written(channel)).isEqualTo(new byte[] {1, 1, 1, 2, 2, 2, 2});
    }

    @Test
    void shouldKeepEachSendersOrderWhenThreadsAddAtOnce() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        EmbeddedChannel channel = new EmbeddedChannel();
        Outbox outbox = new Outbox(channel, group.next());
        int senders = 4;
        int perSender = 2_000;
        CountDownLatch go = new CountDownLatch(1);
        Thread[] threads = new Thread[senders];
        for (int s = 0; s < senders; s++) {
            int sender = s;
            threads[s] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < perSender; i++) {
                    // A 4-byte frame: the sender and its running number.
                    outbox.add(new byte[] {(byte) sender, (byte) (i >>> 16), (byte) (i >>> 8), (byte) i});
                }
            });
            threads[s].start();
        }
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        group.next().submit(() -> {}).get(10, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();

        byte[] bytes = written(channel);
        assertThat(bytes).hasSize(senders * perSender * 4);
        int[] next = new int[senders];
        for (int at = 0; at < bytes.length; at += 4) {
            int sender = bytes[at];
            int number = ((bytes[at + 1] & 0xff) << 16) | ((bytes[at + 2] & 0xff) << 8) | (bytes[at + 3] & 0xff);
            assertThat(number).as("frame of sender %d at byte %d", sender, at).isEqualTo(next[sender]);
            next[sender]++;
        }
        assertThat(next).containsOnly(perSender);
    }
}
