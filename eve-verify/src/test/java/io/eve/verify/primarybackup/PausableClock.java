package io.eve.verify.primarybackup;

import java.util.function.LongSupplier;

/**
 * A monotonic clock that can stand still, like the clock of a stopped process as that process sees it:
 * when it resumes, time continues from where it stopped, with no jump.
 */
final class PausableClock implements LongSupplier {
    private long offset;
    private long pausedAt = -1;

    @Override
    public synchronized long getAsLong() {
        return pausedAt >= 0 ? pausedAt : System.nanoTime() - offset;
    }

    synchronized void pause() {
        pausedAt = getAsLong();
    }

    synchronized void resume() {
        offset = System.nanoTime() - pausedAt;
        pausedAt = -1;
    }
}
