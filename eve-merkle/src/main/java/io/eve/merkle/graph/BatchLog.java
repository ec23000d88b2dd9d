package io.eve.merkle.graph;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What one batch changed, kept until the version it produced becomes stable: the pre-images saved by
 * {@code modify} (written concurrently by executor threads), the objects placed at seal, and the objects
 * freed by the collector or by a transfer. Undoing it restores the objects of the previous version.
 */
final class BatchLog {
    record PreImage(StateObject object, TypeHandler handler, Object state) {}

    record Freed(StateObject object, long oid, long placedSeq) {}

    final ConcurrentLinkedQueue<PreImage> preImages = new ConcurrentLinkedQueue<>();
    final List<StateObject> placed = new ArrayList<>();
    final List<Freed> freed = new ArrayList<>();

    boolean isEmpty() {
        return preImages.isEmpty() && placed.isEmpty() && freed.isEmpty();
    }

    /** Restores every object this batch touched to its state before the batch. */
    void undo(ObjectGraphState owner) {
        for (PreImage preImage : preImages) {
            preImage.handler().restore(preImage.object(), preImage.state());
        }
        for (Freed f : freed) {
            f.object().oid = f.oid();
            f.object().owner = owner;
            f.object().placedSeq = f.placedSeq();
        }
        for (StateObject object : placed) {
            object.oid = 0;
            object.owner = null;
        }
    }
}
