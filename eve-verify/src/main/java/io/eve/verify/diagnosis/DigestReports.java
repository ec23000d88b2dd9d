package io.eve.verify.diagnosis;

import io.eve.protocol.Message.ObjectDigests;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What one replica keeps of its peers' {@link ObjectDigests} reports, and what its diagnoses found: the last
 * report of each sender (the caller admits only the peers that may send one, so memory is bounded by their
 * number and the message's own limits), dropped once a batch at or after it commits. Confined to the
 * protocol thread of the role that owns it.
 */
public final class DigestReports {
    private final Map<Integer, ObjectDigests> last = new TreeMap<>();
    private long diagnosed;
    private long objects;
    private Optional<Divergence> latest = Optional.empty();
    private Optional<String> lastLine = Optional.empty();

    /** Keeps {@code report} as {@code sender}'s last, replacing any earlier one. */
    public void onReport(int sender, ObjectDigests report) {
        last.put(sender, report);
    }

    /** {@code sender}'s report on batch {@code seq} of {@code view}, if it is the last one kept. */
    public Optional<ObjectDigests> of(int sender, long view, long seq) {
        ObjectDigests report = last.get(sender);
        return report != null && report.view() == view && report.seq() == seq ? Optional.of(report) : Optional.empty();
    }

    /** Batch {@code seq} committed: reports on it and the batches before it are no longer needed. */
    public void onCommitted(long seq) {
        last.values().removeIf(report -> report.seq() <= seq);
    }

    /**
     * Counts a diagnosis made with the reports: one batch, and the {@code named} distinct objects it named
     * (several comparisons of one batch may name the same object); {@code last} is the last comparison.
     */
    public void record(Divergence last, int named) {
        diagnosed++;
        objects += named;
        latest = Optional.of(last);
    }

    /** Counts a diagnosis of a batch whose objects could not be named (a report missing). */
    public void recordUnnamed() {
        diagnosed++;
    }

    /** Batches diagnosed since start: tokens that still differed after sequential re-execution. */
    public long diagnosed() {
        return diagnosed;
    }

    /** Objects named as different, summed over the diagnoses since start. */
    public long divergedObjects() {
        return objects;
    }

    /** Keeps the diagnosis as the WARN line gave it (what it named, or why it named nothing). */
    public void noteLine(String line) {
        lastLine = Optional.of(line);
    }

    /** The last diagnosis as the WARN line gave it. */
    public Optional<String> lastLine() {
        return lastLine;
    }

    /** The last diagnosis that compared reports. */
    public Optional<Divergence> latest() {
        return latest;
    }

    /** Reports kept now (at most one per sender). */
    public int kept() {
        return last.size();
    }
}
