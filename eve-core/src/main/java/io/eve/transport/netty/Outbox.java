package io.eve.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The frames waiting to go out on one connection, written in bursts (decision 0039). A sender on any thread
 * adds its frame; the sender that finds the outbox idle schedules one drain on the channel's event loop. The
 * drain copies every frame waiting into as few pooled buffers as it can, writes them and flushes once: one
 * system call for a burst of frames instead of one per frame, and one event-loop task instead of one per
 * frame. A lone frame still goes at once: its drain is the next task the event loop runs (woken for it if it
 * sleeps), just as {@code writeAndFlush} from another thread would have been. A sender on the event loop
 * itself drains the outbox at once, with what other threads queued before it: deferring its frames to the
 * end of the pass would make them wait for whatever the sender does next on that thread (a primary executing
 * a batch inline after sending it to the backup), which costs latency at low load.
 *
 * <p>Frames leave in the order they were added: one queue, one drain at a time, on one thread.
 *
 * <p>Thread-safe: {@link #add} from any thread; the drain runs on the channel's event loop.
 */
final class Outbox implements Runnable {
    /** Frames up to this size are copied into the burst's buffer; larger ones go as they are. */
    static final int COPY_LIMIT = 8 * 1024;

    /** The size of a burst buffer: a frame that does not fit in the current one starts the next. */
    static final int BURST_BUFFER_BYTES = 16 * 1024;

    private final Channel channel;
    private final EventLoop loop;
    private final Queue<byte[]> frames = PlatformDependent.newMpscQueue();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    // On a list of outboxes its event loop drains early (NettyTransport.flush); confined to the event loop.
    private boolean listed;

    Outbox(Channel channel) {
        this(channel, channel.eventLoop());
    }

    /** An outbox for {@code channel} that drains on {@code loop} (tests: a loop other than the channel's). */
    Outbox(Channel channel, EventLoop loop) {
        this.channel = channel;
        this.loop = loop;
    }

    Channel channel() {
        return channel;
    }

    /**
     * Queues {@code frame} (a whole frame of FrameCodec) behind everything added before it. On the event loop
     * itself the outbox is drained at once: the sender (a replica's protocol or inline execution) may go on
     * working on this thread for a while, and a frame to another replica must not wait for that.
     */
    void add(byte[] frame) {
        frames.add(frame);
        if (loop.inEventLoop()) {
            run();
            return;
        }
        schedule();
    }

    /**
     * Queues {@code frame} as {@link #add} does, but never drains on the caller's thread: a sender on the event
     * loop itself leaves the drain to a task that runs after its own, so that every frame it adds meanwhile goes
     * out with one flush. For the replies a replica releases to a client when a batch commits (one per request
     * of the batch): drained one by one, each was a flush, a TLS record and a system call of its own, 15 % of
     * a bft execution replica's CPU (docs/benchmarks.md, "Replies to a client leave in one flush per commit").
     * A reply waits at most for the rest of the task that released it.
     */
    void addDeferred(byte[] frame) {
        frames.add(frame);
        schedule();
    }

    /**
     * Whether the caller, on this outbox's event loop, should put it on its list of outboxes to drain early
     * with {@link #drainEarly}: true once until that drain, false on any other thread (there the drain
     * {@link #addDeferred} scheduled runs as soon as the event loop gets to it).
     */
    boolean listForEarlyDrain() {
        if (listed || !loop.inEventLoop()) {
            return false;
        }
        listed = true;
        return true;
    }

    /**
     * On the event loop: drains what {@link #addDeferred} queued without waiting for its scheduled drain (which
     * then finds nothing, or what was added since).
     */
    void drainEarly() {
        listed = false;
        run();
    }

    private void schedule() {
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
            try {
                loop.execute(this);
            } catch (RejectedExecutionException e) {
                // The transport is closing and its event loop has stopped: the connection is gone, and
                // what it still had to send is lost, as a network would lose it.
                frames.clear();
            }
        }
    }

    /** The drain: on the event loop, everything queued so far, one flush (a scheduled drain may find none). */
    @Override
    public void run() {
        // Cleared before the queue is read: a frame added after the last poll below schedules a new drain.
        scheduled.set(false);
        ByteBuf burst = null;
        boolean wrote = false;
        for (byte[] frame = frames.poll(); frame != null; frame = frames.poll()) {
            if (frame.length > COPY_LIMIT) {
                if (burst != null) {
                    channel.write(burst);
                    burst = null;
                }
                channel.write(Unpooled.wrappedBuffer(frame));
                wrote = true;
                continue;
            }
            if (burst != null && burst.writableBytes() < frame.length) {
                channel.write(burst);
                burst = null;
            }
            if (burst == null) {
                burst = channel.alloc().ioBuffer(BURST_BUFFER_BYTES);
            }
            burst.writeBytes(frame);
            wrote = true;
        }
        if (burst != null) {
            channel.write(burst);
        }
        if (wrote) {
            channel.flush();
        }
    }
}
