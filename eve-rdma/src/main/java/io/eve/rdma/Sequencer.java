package io.eve.rdma;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * Puts the messages of one sender back in seq order, whichever path (ring or control channel) each took:
 * delivers a message once every earlier one was delivered, drops duplicates (a message resent after its
 * path failed), and holds early arrivals. Owned by the transport's thread.
 */
final class Sequencer {
    private final TreeMap<Long, byte[]> early = new TreeMap<>();
    private long next = 1;

    /** Accepts message {@code seq}; hands every message that became deliverable to {@code deliver}. */
    void accept(long seq, byte[] frame, BiConsumer<Long, byte[]> deliver) {
        if (seq < next || early.containsKey(seq)) {
            return;
        }
        early.put(seq, frame);
        drain(deliver);
    }

    /** The sender holds nothing below {@code seq} any more: stop waiting for it. */
    void skipTo(long seq, BiConsumer<Long, byte[]> deliver) {
        if (seq > next) {
            early.headMap(seq).clear();
            next = seq;
        }
        drain(deliver);
    }

    /** The highest seq delivered with no gap before it (0 before the first). */
    long acked() {
        return next - 1;
    }

    int held() {
        return early.size();
    }

    private void drain(BiConsumer<Long, byte[]> deliver) {
        for (Map.Entry<Long, byte[]> first = early.firstEntry();
                first != null && first.getKey() == next;
                first = early.firstEntry()) {
            early.pollFirstEntry();
            next++;
            deliver.accept(first.getKey(), first.getValue());
        }
    }
}
