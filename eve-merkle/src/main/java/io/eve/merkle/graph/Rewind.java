package io.eve.merkle.graph;

import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Takes the live objects of an {@link ObjectGraphState} back to an older kept version and then forward
 * again, leaving every object exactly as it was: the delta of a version that is no longer the last sealed
 * one is written in between (docs/quorum.md, "State transfer"). Going back undoes the logs of the later
 * batches, newest first, as a rollback does, but keeps them; going forward restores what each touched object
 * held before. The tree, the allocator and the roots are not touched: their versions are immutable
 * snapshots. Runs on the execution stage's thread while no request runs.
 */
final class Rewind {
    private final ObjectGraphState owner;
    private final List<BatchLog> logs = new ArrayList<>();
    private final Map<StateObject, Object> contents = new IdentityHashMap<>();
    private final Map<StateObject, TypeHandler> handlers = new IdentityHashMap<>();
    private final Map<StateObject, Placement> placements = new IdentityHashMap<>();

    /** The bookkeeping that undoing a placement or a free changes. */
    private record Placement(long oid, ObjectGraphState owner, long placedSeq) {}

    /**
     * @param later the versions after the target, in ascending order; each still holds the log of the batch
     *     that produced it
     */
    Rewind(ObjectGraphState owner, Collection<ObjectGraphState.Version> later) {
        this.owner = owner;
        for (ObjectGraphState.Version version : later) {
            if (version.log() == null) {
                throw new io.eve.merkle.StateException(
                        "version " + version.seq() + " no longer holds the log that leads back from it");
            }
            logs.add(version.log());
        }
    }

    void back() {
        for (BatchLog log : logs) {
            for (BatchLog.PreImage preImage : log.preImages) {
                StateObject object = preImage.object();
                if (!contents.containsKey(object)) {
                    contents.put(object, preImage.handler().capture(object));
                    handlers.put(object, preImage.handler());
                }
            }
            for (StateObject object : log.placed) {
                remember(object);
            }
            for (BatchLog.Freed freed : log.freed) {
                remember(freed.object());
            }
        }
        for (int i = logs.size() - 1; i >= 0; i--) {
            logs.get(i).undo(owner);
        }
    }

    void forward() {
        contents.forEach((object, content) -> handlers.get(object).restore(object, content));
        placements.forEach((object, placement) -> {
            object.oid = placement.oid();
            object.owner = placement.owner();
            object.placedSeq = placement.placedSeq();
        });
    }

    private void remember(StateObject object) {
        placements.computeIfAbsent(object, o -> new Placement(o.oid, o.owner, o.placedSeq));
    }
}
