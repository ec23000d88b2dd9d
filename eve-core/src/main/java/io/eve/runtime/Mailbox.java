package io.eve.runtime;

import java.time.Duration;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Runs tasks one at a time, in the order they were submitted, like a single-threaded executor, but
 * without a hand-off when it can avoid one: a task submitted with {@link #run} while the mailbox is idle
 * runs at once on the submitting thread, and tasks submitted meanwhile (from any thread, including from
 * inside a running task) are drained by that same thread afterwards. Only when the mailbox is idle and
 * the task must not run on the caller ({@link #post}), or a drain has run {@code drainLimit} tasks in a
 * row, does the work move to the mailbox's own executor.
 *
 * <p>A hand-off costs a thread wake-up, tens of microseconds on a loaded machine, several times per
 * request if every role has its own thread; running on the delivering thread (a Netty event loop, say)
 * costs nothing. The limit keeps a busy mailbox from holding a thread that has other work forever.
 *
 * <p>Thread-safe. A task that throws is reported to the failure handler and the mailbox goes on with the
 * next one. After {@link #close()} submissions are dropped.
 */
public final class Mailbox implements AutoCloseable {
    private final Executor home;
    private final int drainLimit;
    private final FailureHandler onFailure;
    private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private volatile boolean closed;

    /**
     * @param home the executor that runs what the submitting thread should not (one thread is enough)
     * @param drainLimit how many tasks one thread runs in a row before it hands the rest to {@code home}
     * @param onFailure told about a task that threw
     */
    public Mailbox(Executor home, int drainLimit, FailureHandler onFailure) {
        if (drainLimit < 1) {
            throw new IllegalArgumentException("drainLimit must be at least 1, got " + drainLimit);
        }
        this.home = Objects.requireNonNull(home, "home");
        this.drainLimit = drainLimit;
        this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
    }

    /** What happens to a task's exception. */
    @FunctionalInterface
    public interface FailureHandler {
        void onFailure(Throwable failure);
    }

    /** Runs {@code task} after every task submitted before it; on this thread if the mailbox is idle. */
    public void run(Runnable task) {
        submit(task, true);
    }

    /** Runs {@code task} after every task submitted before it, never on this thread. */
    public void post(Runnable task) {
        submit(task, false);
    }

    /**
     * Runs {@code query} in this mailbox and waits up to {@code timeout} for its answer: a consistent read
     * of what the mailbox's tasks own, from any thread but one running a task of this same mailbox (which
     * would wait for itself).
     *
     * @throws TimeoutException if no answer came in time (the mailbox is busy, stopped or closed)
     * @throws ExecutionException if the query threw
     */
    public <T> T ask(Supplier<T> query, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        CompletableFuture<T> answer = new CompletableFuture<>();
        run(() -> {
            try {
                answer.complete(query.get());
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
            }
        });
        return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Daemon threads named {@code name}, for the executors mailboxes hand their work to. */
    public static ThreadFactory daemonThreads(String name) {
        Objects.requireNonNull(name, "name");
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Whether no task is queued or running right now (a hint: it may change at once). */
    public boolean idle() {
        return !draining.get() && queue.isEmpty();
    }

    private void submit(Runnable task, boolean inline) {
        Objects.requireNonNull(task, "task");
        if (closed) {
            return;
        }
        queue.add(task);
        if (draining.compareAndSet(false, true)) {
            if (inline) {
                drain();
            } else {
                handOff();
            }
        }
    }

    /** Runs queued tasks; the caller owns {@code draining}, and this gives it back (or to the home executor). */
    private void drain() {
        int ran = 0;
        while (true) {
            if (ran == drainLimit) {
                handOff();
                return;
            }
            Runnable task = queue.poll();
            if (task == null) {
                draining.set(false);
                // A task queued between the poll and the release finds the flag still set and leaves the
                // drain to us: take it back if nobody else has.
                if (queue.isEmpty() || !draining.compareAndSet(false, true)) {
                    return;
                }
                continue;
            }
            ran++;
            runGuarded(task);
        }
    }

    private void handOff() {
        if (closed) {
            queue.clear();
            draining.set(false);
            return;
        }
        try {
            home.execute(this::drain);
        } catch (RejectedExecutionException e) {
            // The home executor stopped: the mailbox is closing, the rest is dropped.
            queue.clear();
            draining.set(false);
        }
    }

    private void runGuarded(Runnable task) {
        if (closed) {
            return;
        }
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            onFailure.onFailure(e);
        }
    }

    /** Drops every task not yet started; a running one finishes. */
    @Override
    public void close() {
        closed = true;
        queue.clear();
    }
}
