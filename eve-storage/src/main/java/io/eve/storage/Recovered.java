package io.eve.storage;

/**
 * What a replica found on its disk at start.
 *
 * @param seq the last committed batch its state now holds (0: nothing was recovered)
 * @param view the view that batch committed in (0 when nothing was recovered)
 * @param checkpointSeq the batch of the last checkpoint applied (0 without one)
 * @param replayed how many logged batches were executed again on top of it
 */
public record Recovered(long seq, long view, long checkpointSeq, long replayed) {
    /** An empty directory. */
    public static final Recovered NOTHING = new Recovered(0, 0, 0, 0);

    /** Whether any state came from the disk. */
    public boolean any() {
        return seq > 0;
    }
}
