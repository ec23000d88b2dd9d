package io.eve.rdma.memory;

import io.eve.rdma.FabricException;
import io.eve.rdma.OneSidedFabric;
import io.eve.rdma.RegionDescriptor;
import io.eve.rdma.RemoteAccessException;
import io.eve.rdma.RemoteRegion;
import io.eve.rdma.verbs.PendingWrites;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

/**
 * One "RDMA network" inside a JVM: {@link #node(int)} gives each node its {@link OneSidedFabric}; a write
 * copies into the owner's registered buffer, as the NIC's DMA would, under the {@link WriteFaults} policy
 * set with {@link #faults}. Revoked or unknown registrations fail writes with {@link
 * RemoteAccessException} and break the path, as a write to a deregistered memory region does on RC.
 *
 * <p>As on a device, every write path is a queue pair with a number, a destroyed queue pair's number is
 * reused by the next one, and completions are dispatched by that number to whichever path holds it now,
 * through the same {@link PendingWrites} bookkeeping the DiSNI fabric uses; {@link #staleCompletions} makes
 * a torn-down path's flushed completion arrive after its number was reused. A path's {@link
 * RemoteRegion#doorbell()} reaches the owner's doorbell listener once the writes before it are placed.
 *
 * <p>Thread-safe. Deferred pieces wait in a list until {@link #releaseDeferred()}.
 */
public final class InMemoryFabric implements AutoCloseable {
    private final Map<Long, Registration> registrations = new ConcurrentHashMap<>();
    private final Set<Integer> crashed = ConcurrentHashMap.newKeySet();
    private final List<Piece> deferred = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger keys = new AtomicInteger(0x1000);
    private final AtomicLong pathNumbers = new AtomicLong();
    private final Map<Integer, Path> queuePairs = new ConcurrentHashMap<>();
    private final TreeSet<Integer> freeQueuePairs = new TreeSet<>();
    private final Map<Integer, List<StaleCompletion>> staleByQueuePair = new ConcurrentHashMap<>();
    private final Map<Integer, IntConsumer> doorbells = new ConcurrentHashMap<>();
    private final AtomicLong doorbellsRung = new AtomicLong();
    private final AtomicLong staleDelivered = new AtomicLong();
    private int nextQueuePair = 1;
    private volatile boolean staleCompletions;
    private volatile WriteFaults faults = WriteFaults.NONE;
    private volatile boolean refuseInline;
    private volatile boolean failPosts;
    private volatile boolean failRegistrations;
    private volatile long connectTimeoutMillis;
    private volatile boolean refuseAccepts;
    private final Object hung = new Object();
    private boolean hangConnects;

    /** The largest write a queue pair of this fabric takes inline, as a device reports {@code max_inline_data}. */
    public static final int INLINE_LIMIT = 64;

    private record Registration(ByteBuffer buffer, int rkey, long epoch) {}

    /** Bytes still to be placed at {@code offset} of {@code target}, and the write they finish. */
    private record Piece(ByteBuffer target, long offset, byte[] bytes, Runnable done) {}

    /** A completion of a destroyed queue pair, still waiting in the completion queue. */
    private record StaleCompletion(long wrId, FabricException error) {}

    public void faults(WriteFaults faults) {
        this.faults = faults == null ? WriteFaults.NONE : faults;
    }

    /**
     * While on, posting a write of 1 to {@value #INLINE_LIMIT} bytes (one DiSNI would post inline) fails at
     * once, as {@code ibv_post_send} does with {@code EINVAL} when a queue pair was created without room
     * for inline data; the path breaks.
     */
    public void refuseInline(boolean on) {
        this.refuseInline = on;
    }

    /** While on, posting any write fails at once ({@code ENOMEM}, the send queue is full); the path breaks. */
    public void failPosts(boolean on) {
        this.failPosts = on;
    }

    /** While on, registering memory fails ({@code ibv_reg_mr}: {@code ENOMEM}, the locked-memory limit). */
    public void failRegistrations(boolean on) {
        this.failRegistrations = on;
    }

    /**
     * While positive, opening a write path blocks the caller this many milliseconds and then fails, as a
     * DiSNI {@code connect} to a peer whose connection manager does not answer times out.
     */
    public void connectTimeouts(long millis) {
        this.connectTimeoutMillis = Math.max(0, millis);
    }

    /**
     * While on, opening a write path fails because the owner's accept gave no endpoint (DiSNI's {@code
     * accept()} returns {@code null} on a spurious wake-up), so the connection is never established.
     */
    public void refuseAccepts(boolean on) {
        this.refuseAccepts = on;
    }

    /**
     * While on, opening a write path neither completes nor fails: the caller blocks until {@link #heal} (or
     * this method with {@code false}, or {@link #close}), as a connect whose connection manager events never
     * arrive; then the open goes on as the fabric allows at that moment.
     */
    public void hangConnects(boolean on) {
        synchronized (hung) {
            hangConnects = on;
            hung.notifyAll();
        }
    }

    private void awaitConnectsReleased() {
        synchronized (hung) {
            while (hangConnects) {
                try {
                    hung.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new FabricException("interrupted while connecting (connects hang)");
                }
            }
        }
    }

    /**
     * While on, a write path that is closed leaves a flushed completion ({@code IBV_WC_WR_FLUSH_ERR}) of its
     * last work request behind, delivered to the next path that gets its queue-pair number, right after that
     * path's first post: the completion a device may still hold for a destroyed queue pair when its number is
     * reused. A path ignores a completion whose work-request id it did not hand out.
     */
    public void staleCompletions(boolean on) {
        this.staleCompletions = on;
    }

    /** How many stale completions reached a path that reused a queue-pair number (whether it ignored them or not). */
    public long staleCompletionsDelivered() {
        return staleDelivered.get();
    }

    /** Doorbells delivered to a listener so far, over every node. */
    public long doorbellsRung() {
        return doorbellsRung.get();
    }

    /** Clears every fault: write placement, posts, registrations, connects and accepts work again. */
    public void heal() {
        hangConnects(false);
        faults = WriteFaults.NONE;
        refuseInline = false;
        failPosts = false;
        failRegistrations = false;
        connectTimeoutMillis = 0;
        refuseAccepts = false;
        staleCompletions = false;
    }

    /** The fabric as node {@code id} sees it. */
    public OneSidedFabric node(int id) {
        return new Node(id);
    }

    /** Makes node {@code writer} stop placing anything, as if it died half-way through its writes. */
    public void crash(int writer) {
        crashed.add(writer);
    }

    /** Lets a crashed node write again, as a restarted process would (on fresh write paths). */
    public void restart(int writer) {
        crashed.remove(writer);
    }

    /** Places every deferred piece, in order of posting; returns how many there were. */
    public int releaseDeferred() {
        return release(null);
    }

    /** Places every deferred piece in an order shuffled by {@code random}; returns how many there were. */
    public int releaseDeferred(Random random) {
        return release(random);
    }

    private int release(Random random) {
        List<Piece> pieces;
        synchronized (deferred) {
            pieces = new ArrayList<>(deferred);
            deferred.clear();
        }
        if (random != null) {
            Collections.shuffle(pieces, random);
        }
        pieces.forEach(piece -> {
            place(piece.target, piece.offset, piece.bytes, 0, piece.bytes.length);
            piece.done.run();
        });
        return pieces.size();
    }

    @Override
    public void close() {
        hangConnects(false);
        registrations.clear();
        deferred.clear();
        doorbells.clear();
    }

    private synchronized int newQueuePair(Path path) {
        Integer reused = freeQueuePairs.pollFirst();
        int number = reused != null ? reused : nextQueuePair++;
        queuePairs.put(number, path);
        return number;
    }

    private synchronized void destroyQueuePair(int number, Path path) {
        if (queuePairs.remove(number, path)) {
            freeQueuePairs.add(number);
        }
    }

    /** The completion queue: hands a completion to whichever path holds queue pair {@code number} now. */
    private void complete(int number, long wrId, FabricException error) {
        Path holder = queuePairs.get(number);
        if (holder != null) {
            holder.pending.onCompletion(wrId, error);
        }
    }

    private static long key(int owner, int peer) {
        return ((long) owner << 32) | (peer & 0xffffffffL);
    }

    /**
     * Copies {@code bytes[from, to)} to {@code offset + from} of {@code target} in one bulk copy. Like a NIC's
     * DMA it promises no order among the bytes of one write (the ring's canary and checksum cover that); a
     * byte-at-a-time loop cost the writing thread about a sixth of its samples in RingClusterBenchmark.
     */
    private static void place(ByteBuffer target, long offset, byte[] bytes, int from, int to) {
        if (to > from) {
            target.put((int) offset + from, bytes, from, to - from);
        }
        VarHandle.releaseFence();
    }

    private final class Node implements OneSidedFabric {
        private final int id;

        Node(int id) {
            this.id = id;
        }

        @Override
        public RegionDescriptor register(int peer, ByteBuffer region) {
            if (!region.isDirect()) {
                throw new IllegalArgumentException("a registered region must be a direct buffer");
            }
            if (failRegistrations) {
                throw new FabricException("registering " + region.capacity() + " bytes of node " + id + " for node "
                        + peer + " failed: ibv_reg_mr returned ENOMEM (is the locked-memory limit high enough?)");
            }
            int rkey = keys.incrementAndGet();
            registrations.put(key(id, peer), new Registration(region, rkey, rkey));
            return new RegionDescriptor("mem:" + id, 0, region.capacity(), rkey, rkey);
        }

        @Override
        public void doorbells(IntConsumer onDoorbell) {
            InMemoryFabric.this.doorbells.put(id, onDoorbell);
        }

        @Override
        public void revoke(int peer) {
            registrations.remove(key(id, peer));
        }

        @Override
        public RemoteRegion open(int peer, RegionDescriptor remote) {
            awaitConnectsReleased();
            long timeout = connectTimeoutMillis;
            if (timeout > 0) {
                try {
                    Thread.sleep(timeout);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new FabricException(
                        "connecting node " + id + " to node " + peer + " timed out after " + timeout + " ms");
            }
            if (refuseAccepts) {
                throw new FabricException("node " + peer + " accepted no endpoint for node " + id
                        + " (accept returned null); the connection was not established");
            }
            return new Path(id, peer, remote);
        }

        @Override
        public void close() {
            registrations.keySet().removeIf(key -> (key >>> 32) == id);
            InMemoryFabric.this.doorbells.remove(id);
        }
    }

    /** Node {@code writer}'s write path into the region {@code owner} registered for it: one queue pair. */
    private final class Path implements RemoteRegion {
        private final int writer;
        private final int owner;
        private final RegionDescriptor descriptor;
        private final PendingWrites pending = new PendingWrites(pathNumbers.incrementAndGet());
        private final int queuePair;
        private long lastWrId;

        Path(int writer, int owner, RegionDescriptor descriptor) {
            this.writer = writer;
            this.owner = owner;
            this.descriptor = descriptor;
            this.queuePair = newQueuePair(this);
        }

        @Override
        public RegionDescriptor descriptor() {
            return descriptor;
        }

        @Override
        public CompletableFuture<Void> write(long offset, ByteBuffer source) {
            byte[] bytes = new byte[source.remaining()];
            source.get(source.position(), bytes);
            PendingWrites.Posted posted = pending.add();
            if (posted.done().isDone() || crashed.contains(writer)) {
                return posted.done();
            }
            lastWrId = posted.wrId();
            if (failPosts) {
                pending.failAll(new FabricException("posting a write of " + bytes.length + " bytes to node " + owner
                        + " failed: ibv_post_send returned ENOMEM (the send queue is full)"));
            } else if (refuseInline && bytes.length > 0 && bytes.length <= INLINE_LIMIT) {
                pending.failAll(new FabricException("posting an inline write of " + bytes.length + " bytes to node "
                        + owner + " failed: ibv_post_send returned EINVAL (above the queue pair's max_inline_data)"));
            } else {
                deliver(posted.wrId(), offset, bytes);
            }
            deliverStale();
            return posted.done();
        }

        private void deliver(long wrId, long offset, byte[] bytes) {
            Registration target = registrations.get(key(owner, writer));
            if (target == null || target.rkey() != descriptor.rkey()) {
                complete(
                        queuePair,
                        wrId,
                        new RemoteAccessException("node " + owner + " revoked the access of node " + writer
                                + " to its region (rkey " + descriptor.rkey() + "): IBV_WC_REM_ACCESS_ERR"));
            } else if (offset < 0 || offset + bytes.length > target.buffer().capacity()) {
                complete(
                        queuePair,
                        wrId,
                        new RemoteAccessException("a write of " + bytes.length + " bytes at " + offset
                                + " lies outside the " + target.buffer().capacity() + "-byte region of node " + owner));
            } else {
                apply(faults.place(writer, owner, offset, bytes.length), target.buffer(), offset, bytes, wrId);
            }
        }

        private void apply(Placement placement, ByteBuffer target, long offset, byte[] bytes, long wrId) {
            int prefix = Math.max(0, Math.min(placement.prefix(), bytes.length));
            Runnable done = () -> complete(queuePair, wrId, null);
            switch (placement.kind()) {
                case NOW -> {
                    place(target, offset, bytes, 0, bytes.length);
                    done.run();
                }
                case TEAR -> {
                    place(target, offset, bytes, 0, prefix);
                    byte[] rest = java.util.Arrays.copyOfRange(bytes, prefix, bytes.length);
                    deferred.add(new Piece(target, offset + prefix, rest, done));
                }
                case DEFER -> deferred.add(new Piece(target, offset, bytes, done));
                case DROP ->
                    complete(
                            queuePair,
                            wrId,
                            new FabricException(
                                    "node " + owner + " stopped answering: IBV_WC_RETRY_EXC_ERR (a write of node "
                                            + writer + " exhausted the transport retry count)"));
                case CRASH -> {
                    place(target, offset, bytes, 0, prefix);
                    crashed.add(writer);
                }
                case CORRUPT -> {
                    byte[] flipped = bytes.clone();
                    if (flipped.length > 0) {
                        flipped[Math.min(placement.prefix(), flipped.length - 1)] ^= 1;
                    }
                    place(target, offset, flipped, 0, flipped.length);
                    done.run();
                }
            }
        }

        /**
         * A zero-length write with immediate data: no memory of the owner is touched (so no rkey is checked);
         * on a reliable connection its receive completion follows the writes posted before it, so it is
         * delivered after every deferred piece of this writer to this owner.
         */
        @Override
        public CompletableFuture<Void> doorbell() {
            PendingWrites.Posted posted = pending.add();
            if (posted.done().isDone() || crashed.contains(writer)) {
                return posted.done();
            }
            lastWrId = posted.wrId();
            if (failPosts) {
                pending.failAll(new FabricException("posting a doorbell to node " + owner
                        + " failed: ibv_post_send returned ENOMEM (the send queue is full)"));
                return posted.done();
            }
            Runnable ring = () -> {
                IntConsumer listener = doorbells.get(owner);
                if (listener != null) {
                    doorbellsRung.incrementAndGet();
                    listener.accept(writer);
                }
                complete(queuePair, posted.wrId(), null);
            };
            if (deferred.isEmpty()) {
                ring.run();
            } else {
                deferred.add(new Piece(ByteBuffer.allocate(0), 0, new byte[0], ring));
            }
            deliverStale();
            return posted.done();
        }

        private void deliverStale() {
            List<StaleCompletion> stale = staleByQueuePair.remove(queuePair);
            if (stale != null) {
                stale.forEach(completion -> {
                    staleDelivered.incrementAndGet();
                    complete(queuePair, completion.wrId(), completion.error());
                });
            }
        }

        @Override
        public int maxInline() {
            return INLINE_LIMIT;
        }

        @Override
        public void flush() {}

        @Override
        public FabricException failure() {
            return pending.failure();
        }

        @Override
        public void close() {
            pending.failAll(new FabricException("the write path to node " + owner + " was closed"));
            destroyQueuePair(queuePair, this);
            if (staleCompletions && lastWrId != 0) {
                staleByQueuePair
                        .computeIfAbsent(queuePair, number -> new CopyOnWriteArrayList<>())
                        .add(new StaleCompletion(
                                lastWrId,
                                new FabricException("write flushed after an earlier error on the queue pair: "
                                        + "IBV_WC_WR_FLUSH_ERR (work request " + lastWrId + ")")));
            }
        }
    }
}
