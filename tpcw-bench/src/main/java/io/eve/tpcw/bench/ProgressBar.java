package io.eve.tpcw.bench;

import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A one-line progress display on stderr: the point being measured (i of n), a bar for its elapsed time,
 * and the interactions completed so far. Redrawn five times a second by its own daemon thread.
 */
final class ProgressBar implements AutoCloseable {
    private static final int WIDTH = 30;

    private final PrintStream err;
    private final ScheduledExecutorService timer;
    private volatile String label = "";
    private volatile long startNanos;
    private volatile long totalNanos = 1;
    private volatile LongSupplier completed = () -> 0;

    ProgressBar(PrintStream err) {
        this.err = err;
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "tpcw-progress");
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleAtFixedRate(this::draw, 200, 200, TimeUnit.MILLISECONDS);
    }

    /** Starts showing a new point that should take {@code seconds}. */
    void begin(String label, double seconds, LongSupplier completed) {
        this.label = label;
        this.completed = completed;
        this.totalNanos = Math.max(1, (long) (seconds * 1e9));
        this.startNanos = System.nanoTime();
    }

    private void draw() {
        double fraction = Math.min(1, (System.nanoTime() - startNanos) / (double) totalNanos);
        int filled = (int) (fraction * WIDTH);
        err.printf(
                "\r%-44s [%s%s] %3.0f%% %,9d done",
                label, "#".repeat(filled), ".".repeat(WIDTH - filled), fraction * 100, completed.getAsLong());
        err.flush();
    }

    @Override
    public void close() {
        timer.shutdownNow();
        err.println();
    }
}
