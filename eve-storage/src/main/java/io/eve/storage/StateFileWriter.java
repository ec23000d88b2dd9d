package io.eve.storage;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit for a {@link StateFile}: records are submitted with increasing versions from any thread; a
 * thread of its own writes the latest one submitted (the ones before it are superseded, never written) and
 * then reports its version durable. However many records arrive during one write, the next write makes them
 * all durable with one force. The writer's thread closes the file when it stops.
 */
public final class StateFileWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StateFileWriter.class);

    private final StateFile file;
    private final String name;
    private final LongConsumer onDurable;
    private final Consumer<Throwable> onFailure;
    private final Thread thread;
    private byte[] pending;
    private long pendingVersion;
    private long durable;
    private long writes;
    private boolean stopping;

    /**
     * @param name how logs and the thread name the owner ("verifier 2")
     * @param onDurable told, on the writer's thread, the version of each record once it is durable
     * @param onFailure told, on the writer's thread, when a write fails; the writer stops
     */
    public StateFileWriter(StateFile file, String name, LongConsumer onDurable, Consumer<Throwable> onFailure) {
        this.file = Objects.requireNonNull(file, "file");
        this.name = Objects.requireNonNull(name, "name");
        this.onDurable = Objects.requireNonNull(onDurable, "onDurable");
        this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
        this.thread = new Thread(this::run, "eve-state-" + name.replace(' ', '-'));
        thread.setDaemon(true);
    }

    /** Starts the writer's thread. */
    public void start() {
        thread.start();
    }

    /**
     * Queues {@code contents} as version {@code version}, which must be above every version submitted before. The
     * writer keeps the array until it is written or superseded: the caller hands it over and must not change it.
     */
    public synchronized void submit(long version, byte[] contents) {
        if (version <= pendingVersion || version <= durable) {
            throw new IllegalArgumentException(name + ": version " + version + " is not above "
                    + Math.max(pendingVersion, durable) + ", submitted before");
        }
        pending = Objects.requireNonNull(contents, "contents");
        pendingVersion = version;
        notifyAll();
    }

    /** Forces done so far (one per group of records). */
    public synchronized long writes() {
        return writes;
    }

    private void run() {
        try (file) {
            while (true) {
                byte[] contents;
                long version;
                synchronized (this) {
                    while (pending == null && !stopping) {
                        wait();
                    }
                    if (pending == null) {
                        break;
                    }
                    contents = pending;
                    version = pendingVersion;
                    pending = null;
                }
                file.write(contents);
                synchronized (this) {
                    durable = version;
                    writes++;
                }
                onDurable.accept(version);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.io.IOException | RuntimeException e) {
            LOG.error("{}: writing {} failed; the node stops", name, file.file(), e);
            onFailure.accept(e);
        }
    }

    /** Writes what is pending, then stops the thread; waits for it unless called on it. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            stopping = true;
            notifyAll();
        }
        if (Thread.currentThread() != thread && thread.isAlive()) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
