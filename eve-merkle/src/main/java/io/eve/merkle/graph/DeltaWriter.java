package io.eve.merkle.graph;

import io.eve.merkle.StateDelta;
import io.eve.merkle.codec.BufferSink;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes what changed since a version (DeltaFormat): only the slots written after it, found through the
 * tree's last-modified marks, so the delta's size follows the change, not the state. An object placed
 * after the base version travels whole; an older one travels as its class's incremental encoding.
 * Runs on the calling thread.
 */
final class DeltaWriter {
    private final ObjectGraphState state;

    DeltaWriter(ObjectGraphState state) {
        this.state = state;
    }

    /**
     * The delta from {@code sinceSeq} to {@code target}, read from {@code target}'s tree, allocation and roots;
     * the live objects must hold {@code target}'s content (the caller rewinds them when it is not the last
     * sealed version).
     */
    StateDelta write(long sinceSeq, ObjectGraphState.Version target) {
        List<StateObject> objects = new ArrayList<>();
        List<Long> order = new ArrayList<>();
        state.tree().forEachChangedSince(target.tree(), sinceSeq, (id, object, lastModified) -> {
            if (id != 0) {
                order.add(id);
                objects.add(object);
            }
        });
        BufferSink sink = new BufferSink(256 + 64 * order.size());
        writeHeader(sink, sinceSeq, target);
        sink.putInt(order.size());
        for (int i = 0; i < order.size(); i++) {
            writeRecord(sink, order.get(i), objects.get(i), sinceSeq);
        }
        return new StateDelta(sinceSeq, target.seq(), sink.toByteArray());
    }

    private static void writeHeader(BufferSink sink, long sinceSeq, ObjectGraphState.Version target) {
        sink.putInt(DeltaFormat.MAGIC);
        sink.putByte(DeltaFormat.VERSION);
        sink.putLong(sinceSeq);
        sink.putLong(target.seq());
        sink.putInt(target.tree().height());
        IdAllocator.Allocation allocation = target.allocation();
        sink.putLong(allocation.nextId());
        sink.putInt(allocation.cursor());
        sink.putInt(allocation.free().length);
        for (long id : allocation.free()) {
            sink.putLong(id);
        }
        var rootIds = ObjectGraphState.rootIds(target.roots());
        sink.putInt(rootIds.size());
        rootIds.forEach((name, id) -> {
            sink.putString(name);
            sink.putLong(id);
        });
    }

    private void writeRecord(BufferSink sink, long id, StateObject object, long sinceSeq) {
        sink.putLong(id);
        if (object == null) {
            sink.putByte(DeltaFormat.EMPTY);
            return;
        }
        boolean whole = object.placedSeq > sinceSeq;
        TypeHandler handler = state.types().handlerFor(object);
        sink.putByte(whole ? DeltaFormat.WHOLE : DeltaFormat.CHANGED);
        sink.putString(handler.name());
        handler.writeDelta(object, sinceSeq, whole, sink);
    }
}
