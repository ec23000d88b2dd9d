package io.eve.verify.diagnosis;

import io.eve.execution.Executed;
import io.eve.execution.Token;
import io.eve.merkle.ObjectDigest;
import io.eve.protocol.Message.ObjectDigests;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What one replica keeps of its peers' {@link ObjectDigests} reports, and the diagnoses it makes with them
 * (docs/state.md, "Diagnosing a batch that still differs"): the last report of each sender (the caller admits
 * only the peers that may send one, so memory is bounded by their number and the message's own limits),
 * dropped once a batch at or after it commits; the text of each diagnosis for the WARN line, and counts of
 * what they named. A report only: nothing here decides what commits. Confined to the protocol thread of the
 * role that owns it.
 */
public final class DigestReports {
    private final Map<Integer, ObjectDigests> last = new TreeMap<>();
    private long diagnosed;
    private long objects;
    private Optional<Divergence> latest = Optional.empty();
    private Optional<String> lastLine = Optional.empty();

    /**
     * Primary-backup: this replica's sequential run of a batch ({@code mine}) and the backup's token for it still
     * differ. Compares this replica's changed objects with the backup's report, or says which side's are missing
     * instead of guessing; returns the text for the WARN line.
     */
    public String diagnosePair(long view, Executed mine, Token peerToken, int peer) {
        String name = "node " + peer;
        String replies = mine.token().replyDigest().equals(peerToken.replyDigest())
                ? "the replies are equal"
                : "the replies differ";
        Optional<ObjectDigests> theirs = of(peer, view, mine.seq());
        String text;
        if (mine.objectDigests().isEmpty() || theirs.isEmpty()) {
            recordUnnamed();
            text = (mine.objectDigests().isEmpty()
                            ? "this replica's state keeps no object digests"
                            : name + " sent no object digests for it (lost, or a version without them)")
                    + ", so the objects are not named; " + replies;
        } else {
            List<ObjectDigest> here = mine.objectDigests().get();
            Divergence divergence = Divergence.compare(
                    mine.seq(), here, 0, theirs.get().entries(), theirs.get().omitted());
            record(divergence, divergence.differences().size());
            text = divergence.describe("here", "at " + name) + "; " + replies;
        }
        lastLine = Optional.of(text);
        return text;
    }

    /**
     * The quorum profiles: the tokens of batch {@code seq}, the first of {@code view} and so run sequentially,
     * cannot reach a quorum. Compares each replica whose token differs from the first replica of the largest group
     * of equal tokens with that replica, by their reports; returns the text for the WARN line.
     */
    public String diagnoseReplicas(long view, long seq, Map<Integer, Token> tokens) {
        Map<Integer, Token> byReplica = new TreeMap<>(tokens);
        Map<String, List<Integer>> groups = new TreeMap<>();
        byReplica.forEach(
                (replica, token) -> groups.computeIfAbsent(token.digest().toHex(), t -> new ArrayList<>())
                        .add(replica));
        List<Integer> largest = List.of();
        for (List<Integer> group : groups.values()) {
            if (group.size() > largest.size() || (group.size() == largest.size() && group.get(0) < largest.get(0))) {
                largest = group;
            }
        }
        int reference = largest.get(0);
        Token referenceToken = byReplica.get(reference);
        Optional<ObjectDigests> base = of(reference, view, seq);
        StringBuilder text = new StringBuilder();
        Set<Long> named = new TreeSet<>();
        Divergence last = null;
        for (Map.Entry<Integer, Token> entry : byReplica.entrySet()) {
            int replica = entry.getKey();
            if (entry.getValue().matches(referenceToken)) {
                continue;
            }
            Optional<ObjectDigests> other = of(replica, view, seq);
            text.append(text.length() == 0 ? "" : "; ").append("replica ").append(replica);
            text.append(
                    entry.getValue().replyDigest().equals(referenceToken.replyDigest())
                            ? " (same replies)"
                            : " (other replies)");
            if (base.isEmpty() || other.isEmpty()) {
                text.append(": replica ")
                        .append(base.isEmpty() ? reference : replica)
                        .append(" sent no object digests for it (lost, or a version without them), so the objects are"
                                + " not named");
                continue;
            }
            last = Divergence.compare(
                    seq,
                    other.get().entries(),
                    other.get().omitted(),
                    base.get().entries(),
                    base.get().omitted());
            last.differences().forEach(difference -> named.add(difference.id()));
            text.append(": ").append(last.describe("at replica " + replica, "at replica " + reference));
        }
        if (last == null) {
            recordUnnamed();
        } else {
            record(last, named.size());
        }
        String line = "objects named: " + named.size() + "; " + text;
        lastLine = Optional.of(line);
        return line;
    }

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
    private void record(Divergence last, int named) {
        diagnosed++;
        objects += named;
        latest = Optional.of(last);
    }

    /** Counts a diagnosis of a batch whose objects could not be named (a report missing). */
    private void recordUnnamed() {
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
