package io.eve.samples.kv;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.merkle.graph.ImmutableBytes;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.mixer.ConflictKeys;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The key-value store of Eve §7.2: a fixed number of objects of a fixed size, each request reading or
 * updating one of them after spending a configurable amount of work. With {@code n} objects, two updates
 * conflict with probability {@code 1/n}, which is how the paper dials the conflict rate.
 *
 * <p>The objects are {@code @Replicated} state objects, found by id in a {@code ReplicatedMap} and written
 * with plain field assignments: the eve-enhance build step tracks them, so the store never calls
 * {@code modify} (docs/state.md, "Tracked writes"). Their content is an {@link ImmutableBytes}, replaced
 * whole by an update, never a {@code byte[]} whose elements could change untracked. The state demo in
 * {@code io.eve.samples.statedemo} keeps the values themselves in a replicated map; this sample covers
 * annotated objects, the layout whose cost follows the paper's object size most directly: one leaf per
 * object, rehashed whole when written.
 *
 * <p>Requests are {@link KvRequest}s. READ declares its object as read and answers its bytes; UPDATE and
 * SEEDED_UPDATE declare it as written and answer the object's new version as 8 big-endian bytes (see
 * {@link #versionOf}). A malformed payload, an unknown id or a value of the wrong size throws
 * {@link IllegalArgumentException}, which the execution stage turns into an error reply.
 *
 * <p>Thread-safe in the way Eve needs: requests of one parallel batch run concurrently and, when the mixer
 * is exact, touch different objects.
 */
public final class KeyValueStore implements Application {
    static final String ROOT = "kv";

    private final ObjectGraphState state;
    private final int objects;
    private final int objectSize;
    private final long workMicros;
    private final WorkKind workKind;

    /**
     * The objects by id as last found in the root's map; not state, only a shortcut (see {@link #objectAt}).
     * Requests of one batch fill different slots; a request reads a slot only for an id it declared, so
     * an earlier batch's write to the slot happened before it.
     */
    private final KvObject[] index;

    /** Where CPU work publishes its result so the JIT keeps it; not state, never read. */
    private volatile long workSink;

    private KeyValueStore(Builder builder, ObjectGraphState state) {
        this.state = state;
        this.objects = builder.objects;
        this.objectSize = builder.objectSize;
        this.workMicros = builder.workMicros;
        this.workKind = builder.workKind;
        this.index = new KvObject[builder.objects];
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public ObjectGraphState state() {
        return state;
    }

    public int objects() {
        return objects;
    }

    public int objectSize() {
        return objectSize;
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        KvRequest request = KvRequest.decode(payload);
        ObjectKey key = new ObjectKey(request.id());
        return request instanceof KvRequest.Read ? ConflictKeys.reading(key) : ConflictKeys.writing(key);
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) {
        KvRequest request = KvRequest.decode(payload);
        KvObject object = objectAt(request.id());
        byte[] newValue = null;
        if (request instanceof KvRequest.Update update) {
            newValue = update.value();
            requireObjectSize(update.id(), newValue);
        }
        if (workMicros > 0) {
            workSink = workKind.perform(workMicros, request.id());
        }
        if (request instanceof KvRequest.Read) {
            return object.value.toByteArray();
        }
        if (request instanceof KvRequest.SeededUpdate seeded) {
            newValue = seededContent(seeded.seed(), context);
        }
        object.value = ImmutableBytes.copyOf(newValue);
        object.version++;
        return ByteBuffer.allocate(Long.BYTES).putLong(object.version).array();
    }

    /** The version an UPDATE or SEEDED_UPDATE reply carries. */
    public static long versionOf(byte[] updateReply) {
        if (updateReply.length != Long.BYTES) {
            throw new IllegalArgumentException(
                    "an update reply is " + Long.BYTES + " bytes, got " + updateReply.length);
        }
        return ByteBuffer.wrap(updateReply).getLong();
    }

    private KvObject objectAt(long id) {
        if (id >= objects) {
            throw new IllegalArgumentException(
                    "no object " + id + ": the store holds " + objects + " objects, ids 0 to " + (objects - 1));
        }
        // A map lookup hashes the key (SHA-256) under the map's lock, which every request of a batch would
        // share; the index remembers what it found. An entry is used only while its object is still placed
        // in this state: the map's entries never change after the build, so a placed object found under
        // an id is still that id's object, and a transfer or rollback that replaces instances unplaces the
        // old ones (their id becomes 0), which sends the next request back to the map. Before the first
        // seal nothing is placed and every request asks the map.
        int slot = (int) id;
        KvObject cached = index[slot];
        if (cached != null && state.idOf(cached) != 0) {
            return cached;
        }
        KvObject found = state.root(ROOT, KvRoot.class).objects.get(id);
        index[slot] = found;
        return found;
    }

    private void requireObjectSize(long id, byte[] value) {
        if (value.length != objectSize) {
            throw new IllegalArgumentException("an UPDATE of object " + id + " carries " + value.length
                    + " bytes; objects here are " + objectSize + " bytes");
        }
    }

    private byte[] seededContent(long seed, ExecutionContext context) {
        byte[] value = new byte[objectSize];
        new SplittableRandom(seed ^ context.random().nextLong()).nextBytes(value);
        return value;
    }

    /** The conflict key of one object; a record so it never equals another application's key by accident. */
    private record ObjectKey(long id) {
        @Override
        public String toString() {
            return "kv:" + id;
        }
    }

    /** Settings of a store; {@link #build} validates them and creates the initial objects. */
    public static final class Builder {
        private int objects = 1_000;
        private int objectSize = 1_024;
        private long workMicros = 1_000;
        private WorkKind workKind = WorkKind.CPU;
        private boolean debug;

        private Builder() {}

        /** How many objects, with ids {@code 0} to {@code objects - 1}. Default 1000. */
        public Builder objects(int objects) {
            this.objects = objects;
            return this;
        }

        /** The size of every object in bytes. Default 1024 (the paper's 1 KB). */
        public Builder objectSize(int bytes) {
            this.objectSize = bytes;
            return this;
        }

        /** The execution time each request spends before touching the state. Default 1000 (1 ms). */
        public Builder workMicros(long micros) {
            this.workMicros = micros;
            return this;
        }

        /** How the work is spent. Default {@link WorkKind#CPU}. */
        public Builder workKind(WorkKind kind) {
            this.workKind = kind;
            return this;
        }

        /** Rehash the whole state at every seal to catch a write that escaped tracking (tests). Default off. */
        public Builder debug(boolean debug) {
            this.debug = debug;
            return this;
        }

        public KeyValueStore build() {
            if (objects < 1) {
                throw new IllegalArgumentException("a store needs at least 1 object, got " + objects);
            }
            if (objectSize < 1) {
                throw new IllegalArgumentException("objects need at least 1 byte, got an object size of " + objectSize);
            }
            if (workMicros < 0) {
                throw new IllegalArgumentException("work per request cannot be negative, got " + workMicros + " µs");
            }
            if (workKind == null) {
                throw new IllegalArgumentException("a work kind is required: CPU or BLOCKING");
            }
            ObjectGraphState state = ObjectGraphState.builder()
                    .register(KvRoot.class, KvObject.class)
                    .debug(debug)
                    .build();
            state.setRoot(ROOT, new KvRoot(initialObjects()));
            return new KeyValueStore(this, state);
        }

        private ReplicatedMap<Long, KvObject> initialObjects() {
            ReplicatedMap<Long, KvObject> initial = new ReplicatedMap<>();
            for (int id = 0; id < objects; id++) {
                byte[] value = new byte[objectSize];
                new SplittableRandom(id).nextBytes(value);
                initial.put((long) id, new KvObject(ImmutableBytes.copyOf(value)));
            }
            return initial;
        }
    }
}
