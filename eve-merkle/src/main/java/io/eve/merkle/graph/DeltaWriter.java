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

    StateDelta write(long sinceSeq) {
        List<StateObject> objects = new ArrayList<>();
        List<Long> order = new ArrayList<>();
        state.tree().forEachChangedSince(sinceSeq, (id, object, lastModified) -> {
            if (id != 0) {
                order.add(id);
                objects.add(object);
            }
        });
        BufferSink sink = new BufferSink(256 + 64 * order.size());
        writeHeader(sink, sinceSeq);
        sink.putInt(order.size());
        for (int i = 0; i < order.size(); i++) {
            writeRecord(sink, order.get(i), objects.get(i), sinceSeq);
        }
        return new StateDelta(sinceSeq, state.sealedSeq(), sink.toByteArray());
    }

    private void writeHeader(BufferSink sink, long sinceSeq) {
        sink.putInt(DeltaFormat.MAGIC);
        sink.putByte(DeltaFormat.VERSION);
        sink.putLong(sinceSeq);
        sink.putLong(state.sealedSeq());
        sink.putInt(state.tree().height());
        IdAllocator.Allocation allocation = state.allocator().snapshot();
        sink.putLong(allocation.nextId());
        sink.putInt(allocation.cursor());
        sink.putInt(allocation.free().length);
        for (long id : allocation.free()) {
            sink.putLong(id);
        }
        var rootIds = state.rootIds();
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
