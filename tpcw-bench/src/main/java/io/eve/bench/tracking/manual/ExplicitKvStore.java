package io.eve.bench.tracking.manual;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;
import io.eve.mixer.ConflictKeys;
import io.eve.samples.kv.KvRequest;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The key-value sample as it was before it used tracked writes, for the explicit-marks baseline: objects
 * in a raw array, contents as {@code byte[]}, manual tracking and a {@code modify} before every update.
 * Same requests ({@link KvRequest}), same replies; no per-request work. Unenhanced (tpcw-bench's build
 * step skips this package).
 */
public final class ExplicitKvStore implements Application {
    private final ObjectGraphState state;
    private final int objectSize;

    /** A store of {@code objects} objects of {@code objectSize} bytes, seeded like the sample's. */
    public ExplicitKvStore(int objects, int objectSize) {
        this.objectSize = objectSize;
        this.state = ObjectGraphState.builder()
                .manualTracking(true)
                .register(Root.class, Item.class)
                .build();
        Item[] items = new Item[objects];
        for (int id = 0; id < objects; id++) {
            byte[] value = new byte[objectSize];
            new SplittableRandom(id).nextBytes(value);
            items[id] = new Item(value);
        }
        state.setRoot("kv", new Root(items));
    }

    @Override
    public VersionedState state() {
        return state;
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        KvRequest request = KvRequest.decode(payload);
        Long key = request.id();
        return request instanceof KvRequest.Read ? ConflictKeys.reading(key) : ConflictKeys.writing(key);
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) {
        KvRequest request = KvRequest.decode(payload);
        Item item = state.root("kv", Root.class).items[(int) request.id()];
        if (request instanceof KvRequest.Read) {
            return item.value.clone();
        }
        byte[] newValue;
        if (request instanceof KvRequest.SeededUpdate seeded) {
            newValue = new byte[objectSize];
            new SplittableRandom(seeded.seed() ^ context.random().nextLong()).nextBytes(newValue);
        } else {
            newValue = ((KvRequest.Update) request).value();
        }
        state.modify(item);
        item.value = newValue;
        item.version++;
        return ByteBuffer.allocate(Long.BYTES).putLong(item.version).array();
    }

    /** The root: the objects by id. */
    @Replicated(name = "bench.kv.Root")
    static final class Root extends StateObject {
        Item[] items;

        Root() {}

        Root(Item[] items) {
            this.items = items;
        }
    }

    /** One object, written after {@code modify}. */
    @Replicated(name = "bench.kv.Object")
    static final class Item extends StateObject {
        long version;
        byte[] value;

        Item() {}

        Item(byte[] value) {
            this.value = value;
        }
    }
}
