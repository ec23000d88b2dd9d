package io.eve.transport;

import io.eve.protocol.Message;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An in-JVM network for tests, samples and in-process clusters: each node's messages are delivered in
 * order on that node's own thread. A {@link Firewall} can drop or alter messages by sender, receiver and
 * content, and a node can be cut off entirely (a crash, as the others see it). Thread-safe.
 */
public final class LocalNetwork implements AutoCloseable {
    private final Map<Integer, Endpoint> endpoints = new ConcurrentHashMap<>();
    private volatile Firewall firewall = Firewall.OPEN;

    /** Decides the fate of each message: deliver it (possibly changed) or drop it ({@code null}). */
    @FunctionalInterface
    public interface Firewall {
        Firewall OPEN = (from, to, message) -> message;

        Message filter(int from, int to, Message message);
    }

    public void setFirewall(Firewall firewall) {
        this.firewall = firewall == null ? Firewall.OPEN : firewall;
    }

    /** A transport for node {@code id}; replaces a previous one with that id (a restarted node). */
    public Transport join(int id) {
        Endpoint endpoint = new Endpoint(id);
        Endpoint previous = endpoints.put(id, endpoint);
        if (previous != null) {
            previous.close();
        }
        return endpoint;
    }

    @Override
    public void close() {
        endpoints.values().forEach(Endpoint::close);
        endpoints.clear();
    }

    private void deliver(int from, int to, Message message) {
        Message passed = firewall.filter(from, to, message);
        Endpoint target = endpoints.get(to);
        if (passed != null && target != null) {
            target.enqueue(from, passed);
        }
    }

    private final class Endpoint implements Transport {
        private final int id;
        private final ExecutorService inbox;
        private volatile Receiver receiver;
        private volatile boolean closed;

        Endpoint(int id) {
            this.id = id;
            this.inbox = Executors.newSingleThreadExecutor(runnable -> {
                Thread thread = new Thread(runnable, "local-node-" + id);
                thread.setDaemon(true);
                return thread;
            });
        }

        @Override
        public int self() {
            return id;
        }

        @Override
        public void start(Receiver receiver) {
            this.receiver = receiver;
        }

        @Override
        public void send(int to, Message message) {
            if (!closed) {
                deliver(id, to, message);
            }
        }

        void enqueue(int from, Message message) {
            if (closed) {
                return;
            }
            try {
                inbox.execute(() -> {
                    Receiver current = receiver;
                    if (current != null && !closed) {
                        current.onMessage(from, message);
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closed meanwhile: a message to a stopped node is lost, as on a real network
            }
        }

        @Override
        public void close() {
            closed = true;
            endpoints.remove(id, this);
            inbox.shutdownNow();
            try {
                inbox.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
