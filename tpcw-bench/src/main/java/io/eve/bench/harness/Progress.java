package io.eve.bench.harness;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * The benchmarks' progress bar on stderr, drawn by {@code me.tongfei:progressbar} (terminal width, redraw,
 * ETA; ASCII, so logs stay readable). Two uses: a run of {@code n} points ({@link #points}, advanced with
 * {@link #onPoint}), and a point of known length ({@link #timed}), whose bar follows the clock and whose
 * message counts what has completed so far. Thread-safe.
 */
public final class Progress implements AutoCloseable {
    private static final int MESSAGE_LIMIT = 60;

    private final PrintStream err;
    private final ScheduledExecutorService ticker;
    private ProgressBar bar;
    private volatile long startNanos = System.nanoTime();
    private volatile long totalMillis = 1;
    private volatile LongSupplier completed;

    private Progress(PrintStream err, ProgressBar bar, boolean clock) {
        this.err = err;
        this.bar = bar;
        if (clock) {
            ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "benchmark-progress");
                thread.setDaemon(true);
                return thread;
            });
            ticker.scheduleAtFixedRate(this::tick, 200, 200, TimeUnit.MILLISECONDS);
        } else {
            ticker = null;
        }
    }

    /** A bar over {@code points} points of a run named {@code task}. */
    public static Progress points(PrintStream err, String task, int points) {
        return new Progress(err, build(err, task, points, ""), false);
    }

    /** A bar that follows the clock through points of known length (see {@link #begin}). */
    public static Progress timed(PrintStream err) {
        return new Progress(err, null, true);
    }

    private static ProgressBar build(PrintStream err, String task, long max, String unit) {
        ProgressBarBuilder builder = new ProgressBarBuilder()
                .setTaskName(task)
                .setInitialMax(max)
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(500)
                .setConsumer(new ConsoleProgressBarConsumer(err, 120));
        if (!unit.isEmpty()) {
            builder.setUnit(unit, 10);
        }
        return builder.build();
    }

    /** Point {@code index} (0-based) of a {@link #points} bar runs now, described by {@code description}. */
    public void onPoint(int index, String description) {
        ProgressBar current;
        synchronized (this) {
            current = bar;
        }
        if (current != null) {
            current.stepTo(index);
            // The library gives the bar what the line leaves: keep the message short enough to leave one.
            current.setExtraMessage(
                    description.length() <= MESSAGE_LIMIT
                            ? description
                            : description.substring(0, MESSAGE_LIMIT - 3) + "...");
        }
    }

    /**
     * Starts following a new point of a {@link #timed} bar: {@code label}, expected to take {@code length},
     * with {@code completed} counting what it has done so far.
     */
    public void begin(String label, Duration length, LongSupplier completed) {
        ProgressBar previous;
        synchronized (this) {
            previous = bar;
            this.startNanos = System.nanoTime();
            this.totalMillis = Math.max(1, length.toMillis());
            this.completed = completed;
            // Counted in tenths of a second, shown in seconds.
            bar = build(err, label, totalMillis / 100, "s");
        }
        if (previous != null) {
            previous.close();
        }
    }

    private void tick() {
        ProgressBar current;
        LongSupplier done;
        synchronized (this) {
            current = bar;
            done = completed;
        }
        if (current != null) {
            long elapsedMillis = (System.nanoTime() - startNanos) / 1_000_000;
            current.stepTo(Math.min(totalMillis, elapsedMillis) / 100);
            if (done != null) {
                current.setExtraMessage(String.format("%,d done", done.getAsLong()));
            }
        }
    }

    /** Completes the bar and stops its clock. */
    @Override
    public void close() {
        if (ticker != null) {
            ticker.shutdownNow();
        }
        ProgressBar current;
        synchronized (this) {
            current = bar;
            bar = null;
        }
        if (current != null) {
            current.stepTo(current.getMax());
            current.close();
        }
    }
}
