package io.eve.bench.suite;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The thread group of everything client-side: the suite's closed-loop driver threads and the client
 * libraries' own threads. Threads inherit their creator's group, so a client library built through
 * {@link #build} (and threads it starts later from client threads) lands here, which is how the CPU
 * accounting tells client work from server work in one JVM. Thread-safe.
 */
public final class ClientSide {
    private final ThreadGroup group = new ThreadGroup("kvsuite-clients");

    /** Runs {@code factory} on a short-lived thread of the client group and returns what it built. */
    public <T> T build(Callable<T> factory) throws Exception {
        AtomicReference<T> built = new AtomicReference<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        Thread thread = new Thread(
                group,
                () -> {
                    try {
                        built.set(factory.call());
                    } catch (Exception e) {
                        failure.set(e);
                    }
                },
                "kvsuite-client-setup");
        thread.start();
        thread.join();
        if (failure.get() != null) {
            throw failure.get();
        }
        return built.get();
    }

    /** A new, unstarted driver thread in the client group. */
    Thread newThread(Runnable body, String name) {
        Thread thread = new Thread(group, body, name);
        thread.setDaemon(true);
        return thread;
    }

    /** Whether {@code thread} belongs to the client side (a terminated thread has no group: no). */
    public boolean owns(Thread thread) {
        for (ThreadGroup g = thread.getThreadGroup(); g != null; g = g.getParent()) {
            if (g == group) {
                return true;
            }
        }
        return false;
    }
}
