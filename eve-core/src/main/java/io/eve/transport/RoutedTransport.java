package io.eve.transport;

import io.eve.protocol.Message;
import java.util.Objects;
import java.util.Set;

/**
 * Two transports as one: messages to the replicas go over one (RDMA for the verification traffic, DESIGN.md
 * section 10), messages to anyone else over the other (TCP for clients), and what arrives on either is
 * delivered to the one receiver. A pair of nodes always uses the same underlying transport, chosen by node
 * id, so the port's order guarantee per pair still holds.
 *
 * <p>Thread-safe. The receiver is called one message at a time, as the port promises, even though the two
 * transports deliver on their own threads.
 */
public final class RoutedTransport implements Transport {
    private final Transport replicas;
    private final Set<Integer> replicaIds;
    private final Transport others;

    /**
     * @param replicas carries the messages to and from {@code replicaIds}
     * @param others carries everything else (clients)
     */
    public RoutedTransport(Transport replicas, Set<Integer> replicaIds, Transport others) {
        this.replicas = Objects.requireNonNull(replicas, "replicas");
        this.replicaIds = Set.copyOf(replicaIds);
        this.others = Objects.requireNonNull(others, "others");
        if (replicas.self() != others.self()) {
            throw new IllegalArgumentException(
                    "both transports must be the same node, got " + replicas.self() + " and " + others.self());
        }
    }

    @Override
    public int self() {
        return replicas.self();
    }

    @Override
    public void start(Receiver receiver) {
        Objects.requireNonNull(receiver, "receiver");
        Receiver oneAtATime = new Receiver() {
            @Override
            public synchronized void onMessage(int from, Message message) {
                receiver.onMessage(from, message);
            }
        };
        replicas.start(oneAtATime);
        others.start(oneAtATime);
    }

    @Override
    public void send(int to, Message message) {
        (replicaIds.contains(to) ? replicas : others).send(to, message);
    }

    @Override
    public void flush() {
        replicas.flush();
        others.flush();
    }

    @Override
    public void close() {
        try {
            replicas.close();
        } finally {
            others.close();
        }
    }
}
