package io.eve.merkle.graph;

import io.eve.merkle.codec.Sink;
import io.eve.merkle.codec.Source;
import java.util.function.Consumer;

/**
 * The {@link TypeHandler} of {@link ReplicatedCell}: the value's canonical encoding is both its digest
 * input and its delta; the pre-image is the value itself (immutable, or a private copy). Thread-safe.
 */
final class CellHandler implements TypeHandler {
    static final CellHandler INSTANCE = new CellHandler();

    private CellHandler() {}

    @Override
    public String name() {
        return ReplicatedCell.NAME;
    }

    @Override
    public void encode(StateObject object, Sink sink) {
        CanonicalValues.encode(((ReplicatedCell<?>) object).rawValue(), sink);
    }

    @Override
    public Object capture(StateObject object) {
        return ((ReplicatedCell<?>) object).rawValue();
    }

    @Override
    public void restore(StateObject object, Object preImage) {
        ((ReplicatedCell<?>) object).rawSet(preImage);
    }

    @Override
    public void forEachReference(StateObject object, Consumer<StateObject> action) {
        if (((ReplicatedCell<?>) object).rawValue() instanceof StateObject referent) {
            action.accept(referent);
        }
    }

    @Override
    public void forEachNewReference(StateObject object, Consumer<StateObject> action) {
        forEachReference(object, action);
    }

    @Override
    public void afterSeal(StateObject object) {}

    @Override
    public boolean needsAfterSeal() {
        return false;
    }

    @Override
    public void writeDelta(StateObject object, long sinceSeq, boolean whole, Sink sink) {
        encode(object, sink);
    }

    @Override
    public PendingWrite readDelta(Source source, boolean whole) {
        Object decoded = CanonicalValues.decode(source);
        return (target, objects, epoch) ->
                ((ReplicatedCell<?>) target).rawSet(CanonicalValues.resolve(decoded, objects));
    }

    @Override
    public StateObject newInstance() {
        return new ReplicatedCell<>();
    }
}
