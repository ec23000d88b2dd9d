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
 * sent by whoever publishes the durable batch (the storage thread), in one drain per group commit.
 *
 * <p>{@link #release} from the protocol thread, {@link #onDurable} from the storage thread; thread-safe.
 */
final class HeldReplies {
    private final Consumer<Reply> send;
    private final NavigableMap<Long, List<Reply>> held = new TreeMap<>();
    private volatile long durable;

    HeldReplies(Consumer<Reply> send, long durable) {
        this.send = send;
        this.durable = durable;
    }

    /** Sends {@code reply} now if batch {@code seq} is durable, else once it is. */
    void release(long seq, Reply reply) {
        if (seq <= durable) {
            send.accept(reply);
            return;
        }
        synchronized (this) {
            if (seq > durable) {
                held.computeIfAbsent(seq, s -> new ArrayList<>()).add(reply);
                return;
            }
        }
        send.accept(reply);
    }

    /** Batches up to {@code seq} are durable: their replies go. */
    void onDurable(long seq) {
        List<Reply> ready = new ArrayList<>();
        synchronized (this) {
            durable = seq;
            NavigableMap<Long, List<Reply>> due = held.headMap(seq, true);
            for (Map.Entry<Long, List<Reply>> entry : due.entrySet()) {
                ready.addAll(entry.getValue());
            }
            due.clear();
        }
        ready.forEach(send);
    }

    long durable() {
        return durable;
    }

    /** Replies waiting, for tests and status. */
    synchronized int waiting() {
        return held.values().stream().mapToInt(List::size).sum();
    }
}
