package io.eve.merkle.graph;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.ObjectDigest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.StateException;
import io.eve.merkle.VersionedState;
import io.eve.merkle.codec.HashSink;
import io.eve.merkle.tree.IdTree;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A {@link VersionedState} made of annotated Java objects (Eve §5.2): the application's
 * {@link Replicated} objects and replicated collections, reachable from named roots, each a leaf of a
 * copy-on-write Merkle tree indexed by a dense object id.
 *
 * <p>During a batch, executor threads read and write objects concurrently. Each object's first write in
 * the batch saves its pre-image: the eve-enhance build step puts that ({@link Tracking}) before every
 * write to a replicated field, and with {@code manualTracking(true)} the application calls
 * {@link #modify} instead; the replicated collections do it themselves. At
 * {@link #seal} new objects get ids deterministically by a reference scan from the dirty objects
 * (Eve §5.2.1), every {@code gcInterval} batches unreachable objects are freed (Eve §5.2.2), dirty
 * leaves are hashed (in parallel above a threshold) and the root is computed.
 *
 * <p>Supported field types: {@code boolean, byte, short, char, int, long, float, double}, {@code String},
 * enums and references to {@link StateObject}s (the replicated collections and cell among them); with
 * manual tracking also {@code byte[]}, {@code int[]}, {@code long[]} and arrays of state objects.
 * {@code transient} and {@link Exclude}d fields are not state (docs/state.md).
 *
 * <p>Threads: {@link #modify} and the collections are safe to call from any executor thread during a
 * batch. Every other method is called by one thread while no request runs.
 */
public final class ObjectGraphState implements VersionedState {
    private final StateConfig config;
    private final TypeRegistry types;
    private final IdTree<StateObject> tree;
    private final IdAllocator allocator = new IdAllocator();
    private final NavigableMap<Long, Version> versions = new TreeMap<>();
    private final Sealer sealer;

    private NavigableMap<String, StateObject> roots = Collections.emptyNavigableMap();
    private boolean rootsChanged;
    private BatchLog log = new BatchLog();
    private long generation = 1;
    private long lastGeneration = 1;
    private BatchLog nextLog;
    private long nextGeneration;
    private long sealed = NOTHING;
    private long stable = NOTHING;
    /** What {@link #modify} reads: the open batches, published as one so concurrent callers see a consistent pair. */
    private volatile Open open = new Open(NOTHING, 1, log, 0, null);

    private volatile boolean crossBatchConflict;

    /**
     * The open batches: the one in progress (after {@code sealed}) and, while batches overlap, the next
     * one. {@code nextLog} is {@code null} when only one is open.
     */
    private record Open(long sealed, long generation, BatchLog log, long nextGeneration, BatchLog nextLog) {}

    /** One sealed version: enough to restore it, and the log that undoes the batch that produced it. */
    record Version(
            long seq,
            Digest root,
            IdTree.Snapshot tree,
            IdAllocator.Allocation allocation,
            NavigableMap<String, StateObject> roots,
            BatchLog log) {}

    ObjectGraphState(StateConfig config) {
        this.config = config;
        this.types = new TypeRegistry(
                Map.of(
                        ReplicatedMap.class, new CollectionHandler(ReplicatedMap.NAME, ReplicatedMap::new),
                        ReplicatedSet.class, new CollectionHandler(ReplicatedSet.NAME, ReplicatedSet::new),
                        ReplicatedCell.class, CellHandler.INSTANCE),
                config.manualTracking());
        this.tree = new IdTree<>(config.pool(), config.parallelThreshold());
        this.sealer = new Sealer(this);
        config.classes().forEach(types::register);
        tree.set(0, null, Sealer.rootsDigest(roots, allocator).toByteArray(), Long.MIN_VALUE);
        versions.put(NOTHING, snapshotVersion(NOTHING, null));
    }

    public static StateConfig.Builder builder() {
        return StateConfig.builder();
    }

    /**
     * Registers a state class ahead of use, validating every field; a replica that receives instances by
     * transfer must have registered their classes.
     *
     * @throws StateException naming the class, the field and its type when a field type is not supported
     */
    public void register(Class<? extends StateObject> type) {
        types.register(type);
    }

    /**
     * Saves {@code object}'s pre-image for rollback and marks it for rehashing at seal, the first time in a
     * batch; enhanced code does this before every write, so only manual tracking, and writes the build
     * step cannot see (reflection, method handles), need the call. Cheap when repeated. Objects not yet part of the state
     * need no call if the request writing them created them; an object created by an earlier request of
     * the batch needs it for a failed request's writes to it to be undone ({@link #abortRequest}).
     */
    public void modify(StateObject object) {
        RequestLog request = RequestLog.current();
        ObjectGraphState owner = object.owner;
        if (owner != this) {
            if (owner == null && object.lastOwner != this) {
                saveForRequest(object, request, null);
                return;
            }
            if (owner != null) {
                throw new StateException("object " + object.oid + " belongs to another state");
            }
            // Freed by this state's collector or a transfer, yet the application still writes it and may
            // link it back: a rollback past the collection must find its contents as they were.
        }
        saveForRequest(object, request, saveForBatch(object, request.batch));
    }

    /**
     * Saves the object's pre-image in the log of the batch the calling thread writes for, if no request
     * of that batch did; returns it if this call saved it.
     */
    private BatchLog.PreImage saveForBatch(StateObject object, long batch) {
        Open now = open;
        long current;
        long other;
        BatchLog target;
        if (batch == 0 || batch == now.sealed() + 1) {
            current = now.generation();
            other = now.nextGeneration();
            target = now.log();
        } else if (batch == now.sealed() + 2 && now.nextLog() != null) {
            current = now.nextGeneration();
            other = now.generation();
            target = now.nextLog();
        } else {
            throw new StateException("a request of batch " + batch + " wrote object " + object.oid
                    + ", but the open batches are " + (now.sealed() + 1)
                    + (now.nextLog() == null ? "" : " and " + (now.sealed() + 2)));
        }
        // The first caller in a batch marks the object as being captured (-current) and saves the
        // pre-image; any other caller waits until that is done, so no write can slip into a pre-image even
        // when a mixer false negative lets two requests write one object concurrently. A failed capture
        // puts the old mark back, and the next caller tries again. An object the other open batch
        // captured is a conflict between the batches: it is flagged, not captured again, so the object
        // keeps the one pre-image from before both batches, and undoing both restores it exactly.
        while (true) {
            long seen = object.generation;
            if (seen == current) {
                return null;
            }
            if (seen == -current || (other != 0 && seen == -other)) {
                Thread.onSpinWait();
            } else if (other != 0 && seen == other) {
                crossBatchConflict = true;
                return null;
            } else if (StateObject.GENERATION.compareAndSet(object, seen, -current)) {
                return capture(object, current, seen, target);
            }
        }
    }

    private BatchLog.PreImage capture(StateObject object, long current, long previous, BatchLog target) {
        boolean saved = false;
        try {
            TypeHandler handler = types.handlerFor(object);
            BatchLog.PreImage preImage = new BatchLog.PreImage(object, handler, handler.capture(object));
            target.preImages.add(preImage);
            saved = true;
            return preImage;
        } finally {
            object.generation = saved ? current : previous;
        }
    }

    /**
     * Records the object's pre-image for the open request on its first write by it. The batch's
     * pre-image serves when this request made it (the object was clean); otherwise an earlier request
     * of the batch wrote the object, and only a fresh copy undoes this request's writes and no more.
     */
    private void saveForRequest(StateObject object, RequestLog request, BatchLog.PreImage savedForBatch) {
        // Requests share a collection: each of its writes records its key's previous value instead.
        if (object instanceof TrieCollection || !request.needsPreImage(object)) {
            return;
        }
        if (savedForBatch != null) {
            request.recordObject(object, savedForBatch.handler(), savedForBatch.state());
        } else {
            TypeHandler handler = types.handlerFor(object);
            request.recordObject(object, handler, handler.capture(object));
        }
    }

    @Override
    public void beginRequest() {
        RequestLog.current().open();
    }

    @Override
    public void endRequest() {
        RequestLog.current().close();
    }

    /**
     * Undoes the writes of the request open on the calling thread: the objects it saved with
     * {@link #modify}, the keys it wrote in replicated collections and cells, the roots it set. The
     * writes of the other requests of the batch stay, and so do the batch's pre-images, so
     * {@link #rollbackTo} still restores the version before the batch. Objects the request created are
     * no longer referenced by anything it wrote, so the seal does not place them.
     */
    @Override
    public void abortRequest() {
        RequestLog.current().abort();
    }

    /**
     * Runs {@code body} with the writes of the calling thread attributed to batch {@code seq}: the
     * execution stage's executor threads run each request this way while batches overlap. Outside it a
     * thread writes to the batch in progress.
     */
    public static void runAsBatch(long seq, Runnable body) {
        RequestLog log = RequestLog.current();
        long previous = log.batch;
        log.batch = seq;
        try {
            body.run();
        } finally {
            log.batch = previous;
        }
    }

    /** The batch a write by the calling thread belongs to (for the collections' write epochs). */
    long writeSeq() {
        long batch = RequestLog.current().batch;
        return batch != 0 ? batch : open.sealed() + 1;
    }

    @Override
    public boolean canOverlap(long seq) {
        // A collecting seal marks the whole graph, and the debug mode's full rehash reads every object:
        // both need every writer stopped.
        return !config.debug() && (config.gcInterval() <= 0 || seq % config.gcInterval() != 0);
    }

    @Override
    public void openNext(long seq) {
        if (seq != sealed + 2) {
            throw new StateException("batch " + seq + " cannot open next: the batch in progress is " + (sealed + 1));
        }
        if (nextLog != null) {
            throw new StateException("batch " + seq + " is already open");
        }
        if (!canOverlap(sealed + 1)) {
            throw new StateException("batch " + (sealed + 1) + " cannot overlap the next: its seal collects garbage"
                    + " or the debug mode rehashes everything");
        }
        nextLog = new BatchLog();
        nextGeneration = ++lastGeneration;
        publish();
    }

    @Override
    public void discardNext() {
        if (nextLog == null) {
            return;
        }
        nextLog.undo(this);
        nextLog = null;
        nextGeneration = 0;
        crossBatchConflict = false;
        publish();
    }

    @Override
    public boolean takeCrossBatchConflict() {
        boolean conflict = crossBatchConflict;
        crossBatchConflict = false;
        return conflict;
    }

    private void publish() {
        open = new Open(sealed, generation, log, nextGeneration, nextLog);
    }

    /** Sets (or, with {@code null}, removes) a named root. Objects reachable from roots are the state. */
    public synchronized void setRoot(String name, StateObject object) {
        Objects.requireNonNull(name, "root name");
        Open now = open;
        RequestLog request = RequestLog.current();
        if (now.nextLog() != null && request.batch == now.sealed() + 2) {
            // The roots belong to the batch in progress: a change by the next batch cannot be attributed.
            crossBatchConflict = true;
        }
        request.recordRoot(this, name, roots.get(name));
        replaceRoot(name, object);
    }

    /** Puts back a root as a failed request found it. */
    synchronized void restoreRoot(String name, StateObject object) {
        replaceRoot(name, object);
    }

    private void replaceRoot(String name, StateObject object) {
        NavigableMap<String, StateObject> next = new TreeMap<>(roots);
        if (object == null) {
            next.remove(name);
        } else {
            if (object.owner != null && object.owner != this) {
                throw new StateException("root " + name + " is an object of another state");
            }
            types.handlerFor(object);
            next.put(name, object);
        }
        roots = Collections.unmodifiableNavigableMap(next);
        rootsChanged = true;
    }

    /** The root named {@code name}, or {@code null}. */
    public <T extends StateObject> T root(String name, Class<T> type) {
        StateObject object = roots.get(name);
        return object == null ? null : type.cast(object);
    }

    /** The root names, in order. */
    public List<String> rootNames() {
        return List.copyOf(roots.keySet());
    }

    /** The object with id {@code oid} in the current state, or {@code null}. For tools and tests. */
    public StateObject objectAt(long oid) {
        return oid <= 0 ? null : tree.get(oid);
    }

    /** The id of {@code object} in this state, or 0 if it is not part of it. */
    public long idOf(StateObject object) {
        return object.owner == this ? object.oid : 0;
    }

    @Override
    public Digest seal(long seq) {
        if (seq != sealed + 1) {
            throw new StateException("seal(" + seq + ") out of order: the last sealed version is " + sealed);
        }
        return sealer.seal(seq);
    }

    @Override
    public void rollbackTo(long seq) {
        if (seq < stable || seq > sealed || !versions.containsKey(seq)) {
            throw new StateException(
                    "cannot roll back to " + seq + ": the versions that can be restored are " + versions.keySet());
        }
        if (nextLog != null) {
            throw new StateException(
                    "cannot roll back to " + seq + " while batch " + (sealed + 2) + " is open next (discard it first)");
        }
        log.undo(this);
        for (Version version : versions.tailMap(seq, false).descendingMap().values()) {
            version.log().undo(this);
        }
        versions.tailMap(seq, false).clear();
        Version target = versions.get(seq);
        tree.restore(target.tree());
        allocator.restore(target.allocation());
        roots = target.roots();
        rootsChanged = false;
        log = new BatchLog();
        generation = ++lastGeneration;
        sealed = seq;
        crossBatchConflict = false;
        publish();
        sealer.afterRollback();
    }

    @Override
    public void markStable(long seq) {
        if (seq < stable || seq > sealed || !versions.containsKey(seq)) {
            throw new StateException("cannot mark " + seq + " stable: stable is " + stable + ", the kept versions are "
                    + versions.keySet());
        }
        versions.headMap(seq, false).clear();
        Version version = versions.get(seq);
        versions.put(
                seq, new Version(seq, version.root(), version.tree(), version.allocation(), version.roots(), null));
        stable = seq;
    }

    @Override
    public long sealedSeq() {
        return sealed;
    }

    @Override
    public long stableSeq() {
        return stable;
    }

    @Override
    public Digest rootAt(long seq) {
        Version version = versions.get(seq);
        if (version == null) {
            throw new StateException("version " + seq + " is not kept; the kept versions are " + versions.keySet());
        }
        return version.root();
    }

    /**
     * Reads the tree of version {@code seq}: the slots its seal wrote (their epoch is {@code seq}) whose digest
     * differs from version {@code seq - 1}'s. Both versions are kept until {@code seq} is stable, so this keeps
     * nothing more; it costs a walk of the nodes the batch copied and two lookups per slot written.
     */
    @Override
    public Optional<List<ObjectDigest>> objectDigests(long seq) {
        Version after = versions.get(seq);
        Version before = versions.get(seq - 1);
        if (seq <= stable || seq > sealed || after == null || before == null) {
            throw new StateException("no object digests for version " + seq + ": there are some for the sealed"
                    + " versions after the stable one " + stable + " whose previous version is kept "
                    + versions.keySet());
        }
        List<ObjectDigest> changed = new ArrayList<>();
        tree.forEachChangedSince(after.tree(), seq - 1, (id, object, lastModified) -> {
            Digest digest = tree.slotDigest(after.tree(), id);
            if (digest.equals(tree.slotDigest(before.tree(), id))) {
                return; // written with the value it had: the same on a replica that did not write it
            }
            if (id == ObjectDigest.TABLE_ID) {
                changed.add(new ObjectDigest(id, "", "", digest));
                return;
            }
            StateObject named = object != null ? object : tree.get(before.tree(), id);
            changed.add(new ObjectDigest(
                    id, types.handlerFor(named).name(), named.getClass().getName(), digest));
        });
        return Optional.of(List.copyOf(changed));
    }

    @Override
    public StateDelta deltaSince(long sinceSeq, long targetSeq) {
        Version target = versions.get(targetSeq);
        if (target == null || targetSeq > sealed) {
            throw new StateException(
                    "no delta to version " + targetSeq + ": the versions kept are " + versions.keySet());
        }
        if (sinceSeq < NOTHING || sinceSeq > targetSeq) {
            throw new StateException("no delta since " + sinceSeq + " to version " + targetSeq);
        }
        requireNoUnsealedWrites("deltaSince");
        if (targetSeq == sealed) {
            return new DeltaWriter(this).write(sinceSeq, target);
        }
        // The live objects hold the last sealed version: take them back to the target through the logs of the
        // batches after it, write, and bring them forward again exactly as they were.
        // back() captures every object it will touch before undoing anything, so forward() restores them even
        // if an undo or the write fails part way.
        Rewind rewind = new Rewind(this, versions.tailMap(targetSeq, false).values());
        try {
            rewind.back();
            return new DeltaWriter(this).write(sinceSeq, target);
        } finally {
            rewind.forward();
        }
    }

    @Override
    public ApplyResult apply(StateDelta delta, long expectedSeq, Digest expectedRoot) {
        Objects.requireNonNull(expectedRoot, "expectedRoot");
        if (delta.baseSeq() != sealed) {
            throw new StateException("a delta from version " + delta.baseSeq() + " needs the state at that version;"
                    + " it is at " + sealed + " (roll back first)");
        }
        requireNoUnsealedWrites("apply");
        if (delta.targetSeq() != expectedSeq) {
            return ApplyResult.rejected(
                    null,
                    "the delta leads to version " + delta.targetSeq() + ", the agreed" + " version is " + expectedSeq);
        }
        if (delta.targetSeq() == delta.baseSeq()) {
            // Nothing to install: the state is already at the agreed version, or it is not.
            Digest root = rootAt(sealed);
            return root.equals(expectedRoot)
                    ? ApplyResult.applied(root)
                    : ApplyResult.rejected(
                            root, "already at version " + sealed + " with root " + root + ", expected " + expectedRoot);
        }
        return new DeltaReader(this).apply(delta, expectedRoot);
    }

    /** How many pre-images the kept versions hold: what rollback could still need (for tests). */
    int keptPreImages() {
        int count = log.preImages.size() + (nextLog == null ? 0 : nextLog.preImages.size());
        for (Version version : versions.values()) {
            count += version.log() == null ? 0 : version.log().preImages.size();
        }
        return count;
    }

    /** Whether the debug mode that rehashes everything at seal is on. */
    public boolean isDebug() {
        return config.debug();
    }

    @Override
    public boolean hasUnsealedWrites() {
        return !log.isEmpty() || rootsChanged || (nextLog != null && !nextLog.isEmpty());
    }

    private void requireNoUnsealedWrites(String operation) {
        if (nextLog != null) {
            throw new StateException(operation + " needs a sealed state, but batch " + (sealed + 2) + " is open");
        }
        if (!log.isEmpty() || rootsChanged) {
            throw new StateException(operation + " needs a sealed state, but batch " + (sealed + 1)
                    + " has unsealed writes (seal or roll back first)");
        }
    }

    // Package-private access for the mechanics of this package (Sealer, DeltaWriter, DeltaReader).

    StateConfig config() {
        return config;
    }

    TypeRegistry types() {
        return types;
    }

    IdTree<StateObject> tree() {
        return tree;
    }

    IdAllocator allocator() {
        return allocator;
    }

    BatchLog log() {
        return log;
    }

    NavigableMap<String, StateObject> roots() {
        return roots;
    }

    boolean rootsChanged() {
        return rootsChanged;
    }

    void replaceRoots(NavigableMap<String, StateObject> newRoots) {
        roots = Collections.unmodifiableNavigableMap(new TreeMap<>(newRoots));
        rootsChanged = true;
    }

    /** Records {@code seq} as sealed with {@code root}, starting a fresh batch. */
    void commitVersion(long seq, Digest root) {
        versions.put(seq, snapshotVersion(seq, log));
        if (nextLog != null) {
            // The next batch, already running, becomes the batch in progress with the writes it has.
            log = nextLog;
            generation = nextGeneration;
            nextLog = null;
            nextGeneration = 0;
        } else {
            log = new BatchLog();
            generation = ++lastGeneration;
        }
        rootsChanged = false;
        sealed = seq;
        publish();
    }

    void startApplyBatch() {
        generation = ++lastGeneration;
        publish();
    }

    private Version snapshotVersion(long seq, BatchLog batchLog) {
        IdTree.Snapshot snapshot = tree.snapshot();
        return new Version(seq, snapshot.rootDigest(), snapshot, allocator.snapshot(), roots, batchLog);
    }

    /** The ids of the roots, in name order (for digests and deltas). */
    Map<String, Long> rootIds() {
        return rootIds(roots);
    }

    /** The ids of {@code named}'s objects as they are placed now, in name order. */
    static Map<String, Long> rootIds(Map<String, StateObject> named) {
        Map<String, Long> ids = new TreeMap<>();
        named.forEach((name, object) -> ids.put(name, FieldSlot.idOf(object)));
        return ids;
    }

    static HashSink sink() {
        return HashSink.forCurrentThread();
    }

    List<StateObject> objectsInIdOrder() {
        List<StateObject> all = new ArrayList<>();
        tree.forEach((id, object, lastModified) -> {
            if (object != null) {
                all.add(object);
            }
        });
        return all;
    }
}
