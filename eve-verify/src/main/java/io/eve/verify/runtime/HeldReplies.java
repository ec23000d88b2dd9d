package io.eve.verify.runtime;

import io.eve.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Consumer;

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
    private final NavigableMap<Long, List<Reply>> held = new TreeMap<>();
    private long durable;

    HeldReplies(Consumer<Reply> send, long durable) {
        this.send = send;
        this.durable = durable;
    }

    /** Sends {@code reply} now if batch {@code seq} is durable, else once it is. */
    void release(long seq, Reply reply) {
        if (seq <= durable) {
            send.accept(reply);
        } else {
            held.computeIfAbsent(seq, s -> new ArrayList<>()).add(reply);
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
