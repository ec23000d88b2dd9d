package io.eve.verify.runtime;

import io.eve.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Replies that may not leave before their batch is durable (storage with sync = batch): held per batch and
 * sent once the storage thread reports the batch durable.
 *
 * <p>Confined to the protocol mailbox: the runtime hands each durable report over to it, so that the storage
 * thread goes straight back to its next force instead of sending replies (docs/benchmarks.md, "Durable
 * replicas": the sends took about 40% of that thread's time).
 */
final class HeldReplies {
    private final Consumer<Reply> send;
    private final LongConsumer want;
    private final NavigableMap<Long, List<Reply>> held = new TreeMap<>();
    private long durable;
    private long wanted;

    /**
     * @param send sends a reply
     * @param want told the batch a reply waits for, the first time a held reply waits for a later batch than
     *     before (the storage then forces as soon as it holds that batch: {@code Storage.want})
     * @param durable the batch durable at start
     */
    HeldReplies(Consumer<Reply> send, LongConsumer want, long durable) {
        this.send = send;
        this.want = want;
        this.durable = durable;
        this.wanted = durable;
    }

    /** Sends {@code reply} now if batch {@code seq} is durable, else once it is. */
    void release(long seq, Reply reply) {
        if (seq <= durable) {
            send.accept(reply);
        } else {
            held.computeIfAbsent(seq, s -> new ArrayList<>()).add(reply);
            if (seq > wanted) {
                wanted = seq;
                want.accept(seq);
            }
        }
    }

    /** Batches up to {@code seq} are durable: their replies go. Reports may come out of order. */
    void onDurable(long seq) {
        if (seq <= durable) {
            return;
        }
        durable = seq;
        NavigableMap<Long, List<Reply>> due = held.headMap(seq, true);
        for (Map.Entry<Long, List<Reply>> entry : due.entrySet()) {
            entry.getValue().forEach(send);
        }
        due.clear();
    }

    long durable() {
        return durable;
    }

    /** Replies waiting, for tests and status. */
    int waiting() {
        return held.values().stream().mapToInt(List::size).sum();
    }
}
