package io.eve.merkle.graph;

import io.eve.merkle.Digest;
import io.eve.merkle.StateException;
import io.eve.merkle.UntrackedWriteException;
import io.eve.merkle.codec.BufferSink;
import io.eve.merkle.codec.HashSink;
import io.eve.merkle.codec.Source;
import io.eve.merkle.tree.ParallelLoop;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Ends a batch (DESIGN.md section 4): places new objects, collects garbage when due, hashes dirty leaves
 * and the tree, and in debug mode checks the incremental root against a full rehash. Runs on the sealing
 * thread; leaf hashing fans out to the configured pool.
 *
 * <p>Leaf digest format: SHA-256(0x00 || stable class name || the object's canonical encoding). The
 * table at id 0: SHA-256(0x03 || root count || (name, id) in name order || next id || free-list cursor
 * || free-list digest), so the id allocator, which decides future placements, is part of the state.
 */
final class Sealer {
    private final ObjectGraphState state;

    /** Debug mode: each object's encoding at the last check, by id, to name and undo untracked writes. */
    private Map<Long, byte[]> lastEncodings = new HashMap<>();

    /** Debug mode: the batch whose seal last threw {@link UntrackedWriteException}. */
    private long retriedSeq = Long.MIN_VALUE;

    Sealer(ObjectGraphState state) {
        this.state = state;
    }

    Digest seal(long seq) {
        BatchLog log = state.log();
        List<StateObject> dirty = inIdOrder(log);
        place(dirty, log, seq);
        if (state.config().gcInterval() > 0 && seq % state.config().gcInterval() == 0) {
            collect(log, seq);
        }
        List<StateObject> touched = new ArrayList<>(dirty.size() + log.placed.size());
        addPlaced(dirty, touched);
        addPlaced(log.placed, touched);
        return finish(touched, seq);
    }

    private static void addPlaced(List<StateObject> objects, List<StateObject> into) {
        for (StateObject object : objects) {
            if (object.isPlaced()) {
                into.add(object);
            }
        }
    }

    /**
     * The objects saved by {@code modify} in this batch, in id order. Sorted as packed {@code long}s (id
     * in the high half, position in the low half): a primitive sort, no comparator calls. One pass over the
     * queue of pre-images (its {@code size()} is a walk too).
     */
    private static List<StateObject> inIdOrder(BatchLog log) {
        StateObject[] logged = new StateObject[64];
        int count = 0;
        for (BatchLog.PreImage preImage : log.preImages) {
            StateObject object = preImage.object();
            if (object.isPlaced()) {
                if (count == logged.length) {
                    logged = Arrays.copyOf(logged, 2 * count);
                }
                logged[count++] = object;
            }
        }
        long[] keys = new long[count];
        long maxId = 0;
        for (int i = 0; i < count; i++) {
            keys[i] = (logged[i].oid << 32) | i;
            maxId = Math.max(maxId, logged[i].oid);
        }
        keys = sortByHighHalf(keys, maxId);
        StateObject[] sorted = new StateObject[count];
        for (int i = 0; i < count; i++) {
            sorted[i] = logged[(int) keys[i]];
        }
        return Arrays.asList(sorted);
    }

    /**
     * {@code keys} in ascending order, when their low halves are already ascending (positions): a stable
     * least-significant-digit radix sort on the high half, one byte per pass, as many passes as
     * {@code maxHigh} has bytes (two for a state of 65,536 objects). Small inputs use {@link Arrays#sort}.
     */
    static long[] sortByHighHalf(long[] keys, long maxHigh) {
        if (keys.length < RADIX_MIN) {
            Arrays.sort(keys);
            return keys;
        }
        long[] from = keys;
        long[] to = new long[keys.length];
        int[] starts = new int[257];
        for (int shift = 32; (maxHigh >>> (shift - 32)) != 0 && shift < 64; shift += 8) {
            Arrays.fill(starts, 0);
            for (long key : from) {
                starts[(int) ((key >>> shift) & 0xFF) + 1]++;
            }
            for (int digit = 0; digit < 256; digit++) {
                starts[digit + 1] += starts[digit];
            }
            for (long key : from) {
                to[starts[(int) ((key >>> shift) & 0xFF)]++] = key;
            }
            long[] swap = from;
            from = to;
            to = swap;
        }
        return from;
    }

    /** Below this many dirty objects, sorting by comparison is as cheap as counting. */
    static final int RADIX_MIN = 128;

    /** Seals a version installed by a transfer: the objects are already placed. */
    Digest sealApplied(List<StateObject> touched, long seq) {
        if (seq <= state.sealedSeq()) {
            throw new StateException("a transfer must lead past version " + state.sealedSeq() + ", got " + seq);
        }
        return finish(touched, seq);
    }

    private Digest finish(List<StateObject> touched, long seq) {
        boolean[] afterSeal = hashLeaves(touched, seq);
        Digest table = rootsDigest(state.roots(), state.allocator());
        if (!table.equals(state.tree().slotDigest(0))) {
            state.tree().set(0, null, table.toByteArray(), seq);
        }
        Digest root = state.tree().rootDigest();
        if (state.config().debug()) {
            root = checkEverything(seq, root);
        }
        for (int i = 0; i < touched.size(); i++) {
            if (afterSeal[i]) {
                StateObject object = touched.get(i);
                state.types().handlerFor(object).afterSeal(object);
            }
        }
        state.commitVersion(seq, root);
        return root;
    }

    /** Eve §5.2.1: scan the dirty objects in id order, give unplaced referents the next ids, recurse. */
    private void place(List<StateObject> dirty, BatchLog log, long seq) {
        ArrayDeque<StateObject> pending = new ArrayDeque<>();
        Consumer<StateObject> visit = ref -> {
            if (ref.owner == state) {
                return;
            }
            if (ref.owner != null) {
                throw new StateException("a reference leads to object " + ref.oid + " of another state");
            }
            state.types().handlerFor(ref);
            ref.oid = state.allocator().allocate();
            ref.owner = state;
            ref.placedSeq = seq;
            log.placed.add(ref);
            state.tree().set(ref.oid, ref, Digest.ZERO.toByteArray(), seq);
            pending.add(ref);
        };
        if (state.rootsChanged()) {
            state.roots().values().forEach(root -> drain(root, visit, pending));
        }
        for (StateObject object : dirty) {
            state.types().handlerFor(object).forEachNewReference(object, visit);
            drainQueue(visit, pending);
        }
    }

    private void drain(StateObject root, Consumer<StateObject> visit, ArrayDeque<StateObject> pending) {
        visit.accept(root);
        drainQueue(visit, pending);
    }

    private void drainQueue(Consumer<StateObject> visit, ArrayDeque<StateObject> pending) {
        for (StateObject next = pending.poll(); next != null; next = pending.poll()) {
            state.types().handlerFor(next).forEachReference(next, visit);
        }
    }

    /** Eve §5.2.2: mark from the roots, free every placed object not reached; same result everywhere. */
    private void collect(BatchLog log, long seq) {
        long limit = state.allocator().nextId();
        if (limit > Integer.MAX_VALUE) {
            throw new StateException("more than " + Integer.MAX_VALUE + " object ids are not supported");
        }
        BitSet marked = new BitSet((int) limit);
        ArrayDeque<StateObject> stack = new ArrayDeque<>();
        Consumer<StateObject> mark = ref -> {
            if (ref.owner == state && !marked.get((int) ref.oid)) {
                marked.set((int) ref.oid);
                stack.push(ref);
            }
        };
        state.roots().values().forEach(mark);
        for (StateObject next = stack.poll(); next != null; next = stack.poll()) {
            state.types().handlerFor(next).forEachReference(next, mark);
        }
        List<StateObject> garbage = new ArrayList<>();
        state.tree().forEach((id, object, lastModified) -> {
            if (object != null && !marked.get((int) id)) {
                garbage.add(object);
            }
        });
        long[] freedIds = new long[garbage.size()];
        for (int i = 0; i < freedIds.length; i++) {
            StateObject object = garbage.get(i);
            freedIds[i] = object.oid;
            log.freed.add(new BatchLog.Freed(object, object.oid, object.placedSeq));
            state.tree().clear(object.oid, seq);
            object.oid = 0;
            object.owner = null;
            object.lastOwner = state;
        }
        state.allocator().release(freedIds);
    }

    /**
     * Hashes the leaves of {@code objects} (in parallel above the threshold) and writes them into the tree.
     * Returns which of them need {@link TypeHandler#afterSeal}. Everything read from an object is read while
     * it is being hashed: after a batch of large objects has streamed through, going back to each object
     * for its id or class would miss the cache once per object.
     */
    boolean[] hashLeaves(List<StateObject> objects, long seq) {
        Leaves leaves = new Leaves(objects);
        TypeRegistry types = state.types();
        int count = objects.size();
        if (count > state.config().parallelThreshold()) {
            int chunks = Math.min(count, 8 * (state.config().pool().getParallelism() + 1));
            ParallelLoop.run(state.config().pool(), chunks, c -> {
                int from = (int) ((long) count * c / chunks);
                int to = (int) ((long) count * (c + 1) / chunks);
                hashRange(leaves, from, to, types);
            });
        } else {
            hashRange(leaves, 0, count, types);
        }
        state.tree().setAll(objects, leaves.ids, leaves.digests, seq);
        return leaves.afterSeal;
    }

    /** What hashing the leaves produces, by position: digests, ids and whether afterSeal is due. */
    private static final class Leaves {
        final List<StateObject> objects;
        final byte[] digests;
        final long[] ids;
        final boolean[] afterSeal;

        Leaves(List<StateObject> objects) {
            this.objects = objects;
            this.digests = new byte[objects.size() * Digest.LENGTH];
            this.ids = new long[objects.size()];
            this.afterSeal = new boolean[objects.size()];
        }
    }

    private static void hashRange(Leaves leaves, int from, int to, TypeRegistry types) {
        HashSink sink = HashSink.forCurrentThread();
        for (int i = from; i < to; i++) {
            StateObject object = leaves.objects.get(i);
            TypeHandler handler = types.handlerFor(object);
            byte[] header = types.leafHeaderFor(object); // 0x00 and the stable name, encoded once per class
            sink.putBytes(header, 0, header.length);
            handler.encode(object, sink);
            sink.finishInto(leaves.digests, i * Digest.LENGTH); // leaves the sink reset for the next leaf
            leaves.ids[i] = object.oid;
            leaves.afterSeal[i] = handler.needsAfterSeal();
        }
    }

    static Digest rootsDigest(Map<String, StateObject> roots, IdAllocator allocator) {
        HashSink sink = HashSink.forCurrentThread();
        sink.putByte(0x03);
        sink.putInt(roots.size());
        roots.forEach((name, object) -> {
            sink.putString(name);
            sink.putLong(FieldSlot.idOf(object));
        });
        allocator.encode(sink);
        return sink.finish();
    }

    /**
     * Debug mode: every leaf and the whole tree recomputed from scratch must match the incremental ones.
     * An object whose digest is stale changed without being marked; its encoding at the last check gives
     * back what it held. The first time a batch finds such objects they are put back and the seal throws
     * {@link UntrackedWriteException} (the caller rolls back and runs the batch again sequentially); the
     * seal of that run adopts the writes, as if {@code modify} had been called, and returns the new root.
     */
    private Digest checkEverything(long seq, Digest root) {
        List<Stale> stale = new ArrayList<>();
        Map<Long, byte[]> fresh = new HashMap<>();
        state.tree().forEach((id, object, lastModified) -> {
            if (object == null) {
                return;
            }
            TypeHandler handler = state.types().handlerFor(object);
            byte[] encoding = encoding(object, handler);
            fresh.put(id, encoding);
            if (!Digest.of(leafDigest(encoding)).equals(state.tree().slotDigest(id))) {
                stale.add(new Stale(id, object, handler, lastEncodings.get(id)));
            }
        });
        if (!rootsDigest(state.roots(), state.allocator()).equals(state.tree().slotDigest(0))) {
            throw new StateException("debug check at seal(" + seq + "): the roots table is stale");
        }
        Digest checked = stale.isEmpty() ? root : untracked(seq, stale);
        Digest recomputed = state.tree().recomputeFromScratch();
        if (!recomputed.equals(checked)) {
            throw new StateException("debug check at seal(" + seq + "): incremental root " + checked
                    + " differs from the full rehash " + recomputed);
        }
        lastEncodings = fresh;
        return checked;
    }

    /** An object whose digest is stale, with its encoding at the last check ({@code null} if unknown). */
    private record Stale(long id, StateObject object, TypeHandler handler, byte[] before) {}

    private Digest untracked(long seq, List<Stale> stale) {
        StringBuilder report = new StringBuilder("debug check at seal(" + seq + "): ");
        List<Object[]> preImages = new ArrayList<>();
        for (Stale s : stale) {
            if (!(s.handler() instanceof FieldCodec codec) || s.before() == null) {
                throw new StateException(
                        report + "object " + s.id() + " (" + s.handler().name()
                                + ") changed without modify() in this or an earlier batch; its digest is stale, so"
                                + " replicas would disagree silently. Call modify(object) before writing it.");
            }
            Source before = new Source(s.before());
            before.getByte(); // the leaf's header: 0x00 and the stable name
            before.getString();
            Object[] preImage = codec.decode(before, state::objectAt);
            preImages.add(preImage);
            report.append("object ")
                    .append(s.id())
                    .append(" (")
                    .append(s.handler().name())
                    .append(", ")
                    .append(s.object().getClass().getName())
                    .append(") field(s) ")
                    .append(codec.changedFields(s.object(), preImage))
                    .append(" changed without modify(); ");
        }
        if (retriedSeq != seq) {
            for (int i = 0; i < stale.size(); i++) {
                stale.get(i).handler().restore(stale.get(i).object(), preImages.get(i));
            }
            retriedSeq = seq;
            throw new UntrackedWriteException(
                    seq,
                    report + "they are put back; roll the batch back and run it sequentially, or enable the"
                            + " eve-enhance build step so writes are tracked");
        }
        // The sequential run wrote them again: keep the writes, with the pre-images modify would have saved.
        List<StateObject> objects = new ArrayList<>();
        for (int i = 0; i < stale.size(); i++) {
            Stale s = stale.get(i);
            state.log().preImages.add(new BatchLog.PreImage(s.object(), s.handler(), preImages.get(i)));
            objects.add(s.object());
        }
        hashLeaves(objects, seq);
        return state.tree().rootDigest();
    }

    /** Forgets the encodings of the last check: a rollback changed the objects (debug mode). */
    void afterRollback() {
        if (!state.config().debug()) {
            return;
        }
        Map<Long, byte[]> restored = new HashMap<>();
        state.tree().forEach((id, object, lastModified) -> {
            if (object != null) {
                restored.put(id, encoding(object, state.types().handlerFor(object)));
            }
        });
        lastEncodings = restored;
    }

    private static byte[] encoding(StateObject object, TypeHandler handler) {
        BufferSink sink = new BufferSink(64);
        sink.putByte(0x00);
        sink.putString(handler.name());
        handler.encode(object, sink);
        return sink.toByteArray();
    }

    private static byte[] leafDigest(byte[] encoding) {
        HashSink sink = HashSink.forCurrentThread();
        sink.putBytes(encoding, 0, encoding.length);
        return sink.finish().toByteArray();
    }
}
