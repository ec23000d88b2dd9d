package io.eve.bench.suite;

import java.io.PrintStream;
import java.time.Duration;

/**
 * A one-line progress bar on stderr, redrawn twice a second by its own daemon thread: points done of
 * all, the estimated share of the run's time elapsed, and what runs now. Thread-safe.
 */
final class ProgressBar implements AutoCloseable {
    private static final int WIDTH = 30;

    private final PrintStream err;
    private final int points;
    private final long plannedNanos;
    private final long startNanos = System.nanoTime();
    private final Thread ticker;
    private volatile int done;
    private volatile String current = "";
    private final boolean terminal = System.console() != null;
    private int drawnPoint = -1;

    ProgressBar(PrintStream err, int points, Duration planned) {
        this.err = err;
        this.points = points;
        this.plannedNanos = Math.max(1, planned.toNanos());
        this.ticker = new Thread(this::tick, "kvsuite-progress");
        ticker.setDaemon(true);
    }

    void start() {
        ticker.start();
    }

    void onPoint(int index, String description) {
        done = index;
        current = description;
    }

    private void tick() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                draw();
                Thread.sleep(500);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void draw() {
        if (!terminal && drawnPoint == done) {
            return; // not a terminal: one line per point, no redraws
        }
        drawnPoint = done;
        double fraction = Math.min(1.0, (System.nanoTime() - startNanos) / (double) plannedNanos);
        int filled = (int) Math.round(fraction * WIDTH);
        err.printf(
                terminal ? "\r[%s%s] %3d%% point %d/%d %s\033[K" : "[%s%s] %3d%% point %d/%d %s%n",
                "#".repeat(filled),
                ".".repeat(WIDTH - filled),
                Math.round(fraction * 100),
                Math.min(done + 1, points),
                points,
                current);
        err.flush();
    }

    @Override
    public void close() {
        ticker.interrupt();
        try {
            ticker.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        done = points - 1;
        draw();
        if (terminal) {
            err.println();
        }
    }
}
