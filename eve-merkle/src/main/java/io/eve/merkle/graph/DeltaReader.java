package io.eve.merkle.graph;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.codec.MalformedInputException;
import io.eve.merkle.codec.Source;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Applies a delta written by {@link DeltaWriter} as one more batch: decode everything first (every
 * length and id checked), then install with pre-images saved, seal at the target version, compare with
 * the expected root, and roll back to the base version if anything is off. Runs on the calling thread.
 */
final class DeltaReader {
    private final ObjectGraphState state;

    DeltaReader(ObjectGraphState state) {
        this.state = state;
    }

    private record Header(long base, long target, int height, long nextId, int cursor, long[] free) {}

    private record Root(String name, long id) {}

    private record Record(long id, byte kind, TypeHandler handler, TypeHandler.PendingWrite write) {}

    ApplyResult apply(StateDelta delta, Digest expectedRoot) {
        Header header;
        List<Root> roots;
        List<Record> records;
        try {
            Source source = new Source(delta.payload());
            header = readHeader(source, delta);
            roots = readRoots(source, header);
            records = readRecords(source, header);
            if (source.hasRemaining()) {
                throw new MalformedInputException(source.remaining() + " bytes follow the last record");
            }
        } catch (MalformedInputException e) {
            return ApplyResult.rejected(null, "malformed delta: " + e.getMessage());
        }
        long base = state.sealedSeq();
        try {
            Digest root = install(header, roots, records);
            if (!root.equals(expectedRoot)) {
                state.rollbackTo(base);
                return ApplyResult.rejected(root, "the delta produces root " + root + ", expected " + expectedRoot);
            }
            return ApplyResult.applied(root);
        } catch (RuntimeException e) {
            // Any failure while installing (a malformed part, a constructor that throws, a value a
            // collection refuses) undoes the whole transfer: nothing of it may stay in the state.
            state.rollbackTo(base);
            return ApplyResult.rejected(null, "inconsistent delta: " + e);
        }
    }

    private static Header readHeader(Source source, StateDelta delta) {
        if (source.getInt() != DeltaFormat.MAGIC) {
            throw new MalformedInputException("not a state delta (bad magic)");
        }
        byte version = source.getByte();
        if (version != DeltaFormat.VERSION) {
            throw new MalformedInputException(
                    "delta format version " + version + " is not supported (expected " + DeltaFormat.VERSION + ")");
        }
        long base = source.getLong();
        long target = source.getLong();
        if (base != delta.baseSeq() || target != delta.targetSeq()) {
            throw new MalformedInputException("the payload says " + base + " -> " + target + ", the delta says "
                    + delta.baseSeq() + " -> " + delta.targetSeq());
        }
        int height = source.getInt();
        if (height < 1 || height > 8) {
            throw new MalformedInputException("tree height " + height + " is outside 1..8");
        }
        long nextId = source.getLong();
        if (nextId < 1 || nextId > DeltaFormat.MAX_ID) {
            throw new MalformedInputException("next id " + nextId + " is outside 1.." + DeltaFormat.MAX_ID);
        }
        int cursor = source.getInt();
        long[] free = new long[source.getCount(Long.BYTES, "free id")];
        for (int i = 0; i < free.length; i++) {
            free[i] = source.getLong();
            if (free[i] < 1 || free[i] >= nextId || (i > 0 && free[i] <= free[i - 1])) {
                throw new MalformedInputException("free id " + free[i] + " is out of order or range");
            }
        }
        if (cursor < 0 || cursor > free.length) {
            throw new MalformedInputException("free-list cursor " + cursor + " is outside 0.." + free.length);
        }
        return new Header(base, target, height, nextId, cursor, free);
    }

    private static List<Root> readRoots(Source source, Header header) {
        int count = source.getCount(12, "root");
        List<Root> roots = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String name = source.getString();
            long id = source.getLong();
            checkId(id, header);
            roots.add(new Root(name, id));
        }
        return roots;
    }

    private List<Record> readRecords(Source source, Header header) {
        int count = source.getCount(9, "record");
        List<Record> records = new ArrayList<>(count);
        long previous = 0;
        for (int i = 0; i < count; i++) {
            long id = source.getLong();
            checkId(id, header);
            if (id <= previous) {
                throw new MalformedInputException("record ids must ascend: " + id + " after " + previous);
            }
            previous = id;
            byte kind = source.getByte();
            if (kind == DeltaFormat.EMPTY) {
                records.add(new Record(id, kind, null, null));
            } else if (kind == DeltaFormat.WHOLE || kind == DeltaFormat.CHANGED) {
                String name = source.getString();
                TypeHandler handler = state.types().handlerNamed(name);
                if (handler == null) {
                    throw new MalformedInputException(
                            "object " + id + " is of class " + name + " which this replica has not registered");
                }
                records.add(new Record(id, kind, handler, handler.readDelta(source, kind == DeltaFormat.WHOLE)));
            } else {
                throw new MalformedInputException("record " + id + " has unknown kind " + kind);
            }
        }
        return records;
    }

    private static void checkId(long id, Header header) {
        if (id < 0 || id >= header.nextId()) {
            throw new MalformedInputException("object id " + id + " is outside 0.." + (header.nextId() - 1));
        }
    }

    private Digest install(Header header, List<Root> roots, List<Record> records) {
        long target = header.target();
        BatchLog log = state.log();
        state.startApplyBatch();
        state.tree().ensureHeight(header.height(), target);
        List<StateObject> installed = new ArrayList<>(records.size());
        for (Record record : records) {
            installed.add(prepare(record, log, target));
        }
        TypeHandler.Resolver resolver = id -> id == 0 ? null : state.tree().get(id);
        for (int i = 0; i < records.size(); i++) {
            Record record = records.get(i);
            if (record.write() != null) {
                record.write().install(installed.get(i), resolver, target);
            }
        }
        TreeMap<String, StateObject> newRoots = new TreeMap<>();
        for (Root root : roots) {
            StateObject object = resolver.resolve(root.id());
            if (object == null) {
                throw new MalformedInputException("root " + root.name() + " names absent object " + root.id());
            }
            newRoots.put(root.name(), object);
        }
        state.replaceRoots(newRoots);
        state.allocator().restore(IdAllocator.Allocation.of(header.nextId(), header.free(), header.cursor()));
        List<StateObject> touched = new ArrayList<>();
        installed.stream().filter(o -> o != null).forEach(touched::add);
        return new Sealer(state).sealApplied(touched, target);
    }

    private StateObject prepare(Record record, BatchLog log, long target) {
        StateObject existing = state.tree().get(record.id());
        if (record.kind() == DeltaFormat.CHANGED) {
            if (existing == null || state.types().handlerFor(existing) != record.handler()) {
                throw new MalformedInputException("incremental record for object " + record.id() + " ("
                        + record.handler().name() + ") which this replica does not hold");
            }
            state.modify(existing);
            return existing;
        }
        if (existing != null) {
            log.freed.add(new BatchLog.Freed(existing, existing.oid, existing.placedSeq));
            existing.oid = 0;
            existing.owner = null;
            existing.lastOwner = state;
        }
        if (record.kind() == DeltaFormat.EMPTY) {
            state.tree().clear(record.id(), target);
            return null;
        }
        StateObject created = record.handler().newInstance();
        created.oid = record.id();
        created.owner = state;
        created.placedSeq = target;
        log.placed.add(created);
        state.tree().set(record.id(), created, Digest.ZERO.toByteArray(), target);
        return created;
    }
}
