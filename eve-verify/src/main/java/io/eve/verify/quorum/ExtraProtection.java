package io.eve.verify.quorum;

import io.eve.execution.Token;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One verifier's extra protection mode (Eve §6.3; docs/quorum.md, "Extra protection mode"), for {@code r = 0}:
 * it watches the {@code Verify} tokens of every batch, enters the mode after {@code k} consecutive batches
 * whose {@code nE} tokens all matched within the wait past the quorum, and while in it tells the
 * {@link Verifier} whether a batch with a quorum of matching tokens may be prepared, must wait, or must be
 * rolled back (a view change, whose new view re-executes its first batch sequentially). The first batch of
 * every new view is the probe: if its tokens do not all match in time either, the fault is not a
 * concurrency bug and the mode ends, so that the normal quorum carries on. The probe's time is longer than
 * a batch's wait: half the view timeout, the scale on which the protocol already tells a slow replica from
 * a failed one, since a replica that is merely paused (a scheduler or collector pause, or still finishing a
 * batch the rollback discarded) must not end the protection (issue 21). Entering it again then takes
 * twice as many clean batches as the time before (at most 64 times {@code k}), until a probe matches again,
 * so that a replica that is slow rather than buggy costs a view change ever more rarely. For the same
 * reason each view entered in the mode doubles the wait, up to half the view timeout, until the mode ends;
 * the wait is also at least an estimate of how late the last token comes (decision 0028). A batch whose
 * missing tokens belong to replicas still catching up (each sent a newer token within the wait) waits on,
 * up to the probe's wait, instead of rolling back (docs/quorum.md, rule 6). No batch counts towards the mode
 * during the configured warm-up after the first token this verifier sees (a deployed JVM still compiling
 * sends late tokens, and each would cost a rollback).
 *
 * <p>It only ever withholds this verifier's {@code Prepare} or starts a view change, both of which a slow
 * verifier may do anyway: safety never depends on it. Not thread-safe: the verifier's protocol thread calls it.
 */
final class ExtraProtection {
    private static final Logger LOG = LoggerFactory.getLogger(ExtraProtection.class);
    private static final int KEPT_BATCHES = 256;
    private static final int MAX_BACKOFF_DOUBLINGS = 6;
    private static final int MAX_WAIT_DOUBLINGS = 10;
    /** How long a late token keeps the wait long: its lateness counts half after this long. */
    static final long LATE_TOKEN_HALF_LIFE_NANOS = 60_000_000_000L;
    /** The wait is at least this many times the latest token's lateness seen lately. */
    private static final int LATE_TOKEN_MARGIN = 2;

    /** What the verifier does with a batch that has a quorum of matching tokens. */
    enum Verdict {
        PREPARE,
        WAIT,
        ROLL_BACK
    }

    private final ExtraProtectionConfig settings;
    private final long probeWaitNanos;
    /** How late the last token comes after the quorum, over the batches where all came (decision 0028). */
    private final LatencyEstimate lastTokenLag;
    /** The longest such lag seen lately (rule 1: the rare long lags come back, the mean forgets them). */
    private final DecayingMaximum longestLag = new DecayingMaximum(LATE_TOKEN_HALF_LIFE_NANOS);

    private final int replicas;
    private final int[] executionReplicas;
    private final int quorum;
    private final String name;
    private final NavigableMap<Long, Batch> batches = new TreeMap<>();
    /** Per execution replica, in the current view: the highest batch it sent a token for, and when. */
    private final Map<Integer, long[]> progress = new HashMap<>();

    private boolean active;
    private boolean waiting;
    /** When this verifier saw its first token, and whether the warm-up after it has run out. */
    private long firstTokenAt;

    private boolean heardAny;
    private boolean warm;
    private int cleanRun;
    private int backoff;
    private int slowness;
    private long probe = -1;
    private long entries;
    private long rollbacks;
    private long exits;

    /** The tokens of one batch in the current view. */
    private static final class Batch {
        final Map<Integer, Token> tokens = new TreeMap<>();
        Token quorumToken;
        long quorumAt;
        boolean decided;
    }

    ExtraProtection(QuorumConfig config) {
        this.settings = config.extraProtection();
        this.probeWaitNanos = config.viewTimeoutNanos() / 2;
        this.lastTokenLag =
                new LatencyEstimate(settings.waitNanos(), Math.max(settings.waitNanos(), probeWaitNanos), 0, 1);
        this.replicas = config.executionCount();
        this.executionReplicas = config.executionReplicas();
        this.quorum = config.verifyQuorum();
        this.name = "verifier " + config.self();
    }

    boolean active() {
        return active;
    }

    /** Whether a batch waits for its last tokens: the verifier asks again on ticks. */
    boolean waiting() {
        return waiting;
    }

    long entries() {
        return entries;
    }

    long rollbacks() {
        return rollbacks;
    }

    long exits() {
        return exits;
    }

    /** A {@code Verify} of the current view from {@code replica}; the first per replica and batch counts. */
    void onVerify(int replica, Token token, long now) {
        if (!settings.enabled()) {
            return;
        }
        if (!heardAny) {
            heardAny = true;
            firstTokenAt = now;
        }
        long seq = token.seq();
        long[] heard = progress.computeIfAbsent(replica, r -> new long[] {-1, now});
        if (seq > heard[0]) {
            heard[0] = seq;
            heard[1] = now;
        }
        if (!batches.isEmpty() && seq < batches.firstKey() && batches.size() >= KEPT_BATCHES) {
            return;
        }
        Batch batch = batches.computeIfAbsent(seq, s -> new Batch());
        while (batches.size() > KEPT_BATCHES) {
            batches.pollFirstEntry();
        }
        if (batch.tokens.putIfAbsent(replica, token) != null) {
            return;
        }
        if (batch.quorumToken != null && batch.tokens.size() == replicas && !mismatched(batch)) {
            // Also for a batch already judged late: the estimate must learn how late tokens really come.
            lastTokenLag.sample(now - batch.quorumAt);
            longestLag.sample(now - batch.quorumAt, now);
        }
        if (batch.quorumToken == null && countMatching(batch, token) >= quorum) {
            batch.quorumToken = token;
            batch.quorumAt = now;
        }
        if (!active) {
            judge(batch, now);
        }
    }

    /** Outside the mode: batches whose wait ran out without all tokens end the clean run. */
    void onTick(long now) {
        if (!settings.enabled() || active) {
            return;
        }
        for (Batch batch : batches.values()) {
            judge(batch, now);
        }
    }

    /**
     * Eve §6.3, in the mode: {@code token} has the quorum for batch {@code seq}; prepare it only once all
     * {@code nE} tokens match, roll back on a mismatch or when the wait runs out. At the probe (the first
     * batch of a view, executed sequentially) a failure ends the mode instead, and the batch goes on with
     * the normal quorum.
     */
    Verdict verdict(long seq, Token token, long now) {
        waiting = false;
        if (!active) {
            return Verdict.PREPARE;
        }
        Batch batch = batches.computeIfAbsent(seq, s -> new Batch());
        if (batch.quorumToken == null) {
            batch.quorumToken = token;
            batch.quorumAt = now;
        }
        boolean probing = seq == probe;
        Boolean clean = outcome(batch, now, probing ? Math.max(waitNanos(now), probeWaitNanos) : waitNanos(now));
        if (clean != null && !clean && !mismatched(batch) && missingAreCatchingUp(batch, now)) {
            clean = null;
        }
        if (clean == null) {
            waiting = true;
            return Verdict.WAIT;
        }
        batch.decided = true;
        if (seq >= probe) {
            probe = -1;
        }
        if (clean) {
            if (probing) {
                backoff = 0; // the rollback paid off: a fault that sequential execution did not repeat
            }
            return Verdict.PREPARE;
        }
        if (probing) {
            active = false;
            cleanRun = 0;
            slowness = 0;
            backoff = Math.min(MAX_BACKOFF_DOUBLINGS, backoff + 1);
            exits++;
            LOG.warn(
                    "{}: leaving extra protection mode: batch {} re-executed sequentially still has {} of {} tokens"
                            + " matching ({}) {} ms after the quorum; entering again after {} clean batches",
                    name,
                    seq,
                    countMatching(batch, token),
                    replicas,
                    mismatched(batch) ? "one differs" : "one missing",
                    (now - batch.quorumAt) / 1_000_000,
                    settings.afterBatches() << backoff);
            return Verdict.PREPARE;
        }
        rollbacks++;
        return Verdict.ROLL_BACK;
    }

    /**
     * A new view starts after batch {@code startSeq}; its first batch runs sequentially and is the probe. In the
     * mode, every new view doubles the wait (up to the probe's): the verifiers that followed a rollback cannot
     * tell a late token from a wrong one, and when each had to learn the lateness by a rollback of its own, the
     * three verifiers of the crash profile took turns ordering rollbacks (issue 24). A longer wait costs nothing
     * when tokens come on time, and a probe that fails (a replica really gone) ends the mode and the doubling.
     */
    void onViewEntered(long startSeq) {
        batches.clear();
        progress.clear();
        waiting = false;
        probe = active ? startSeq + 1 : -1;
        if (active) {
            slowness = Math.min(MAX_WAIT_DOUBLINGS, slowness + 1);
        }
    }

    private void judge(Batch batch, long now) {
        if (batch.decided) {
            return;
        }
        Boolean clean = outcome(batch, now, waitNanos(now));
        if (clean == null) {
            return;
        }
        batch.decided = true;
        if (!warm) {
            warm = now - firstTokenAt >= settings.warmUpNanos();
            if (!warm) {
                return; // still warming up: nothing counts towards the mode (the lag estimate learns all the same)
            }
            if (settings.warmUpNanos() > 0) {
                LOG.info(
                        "{}: warm-up of {} ms over; {} clean batches in a row start extra protection",
                        name,
                        settings.warmUpNanos() / 1_000_000,
                        settings.afterBatches() << backoff);
            }
        }
        if (!clean) {
            cleanRun = 0;
        } else if (++cleanRun >= settings.afterBatches() << backoff) {
            active = true;
            entries++;
            LOG.info(
                    "{}: entering extra protection mode after {} batches with all {} tokens matching",
                    name,
                    cleanRun,
                    replicas);
        }
    }

    /**
     * Why batch {@code seq}, just judged {@link Verdict#ROLL_BACK}, rolls back, for the log: the replicas whose
     * tokens differ from the quorum's, or the tokens still missing, with how long the batch waited. An operator
     * reads a bug (a token that differs) apart from a slow replica (one missing) here.
     */
    String rollBackReason(long seq, long now) {
        Batch batch = batches.get(seq);
        if (batch == null || batch.quorumToken == null) {
            return "the tokens of batch " + seq + " did not all match";
        }
        List<Integer> differing = new ArrayList<>();
        for (Map.Entry<Integer, Token> entry : batch.tokens.entrySet()) {
            if (!entry.getValue().matches(batch.quorumToken)) {
                differing.add(entry.getKey());
            }
        }
        StringBuilder reason = new StringBuilder("batch ").append(seq).append(": ");
        if (!differing.isEmpty()) {
            reason.append(differing.size() == 1 ? "the token of replica " : "the tokens of replicas ")
                    .append(differing.size() == 1 ? differing.get(0) : differing)
                    .append(differing.size() == 1 ? " differs" : " differ")
                    .append(" from the quorum's");
        } else {
            reason.append(replicas - batch.tokens.size())
                    .append(" of ")
                    .append(replicas)
                    .append(" tokens still missing (those of replicas ")
                    .append(batch.tokens.keySet())
                    .append(" came)");
        }
        return reason.append(", ")
                .append((now - batch.quorumAt) / 1_000_000)
                .append(" ms after the quorum (the wait is ")
                .append(waitNanos(now) / 1_000_000)
                .append(" ms)")
                .toString();
    }

    /** True: all {@code nE} tokens match; false: one differs or {@code wait} ran out; null: still open. */
    private Boolean outcome(Batch batch, long now, long wait) {
        if (mismatched(batch)) {
            return false;
        }
        if (batch.quorumToken == null) {
            return null;
        }
        if (batch.tokens.size() == replicas) {
            return true;
        }
        return now - batch.quorumAt > wait ? false : null;
    }

    /**
     * The wait at {@code now}: the longest of the configured one doubled for every view entered in this stay in
     * the mode, the estimate of how late the last token comes (mean plus four deviations), and twice the
     * longest lateness seen lately (halved per minute of age); at most the probe's wait (half the view timeout),
     * and never below the configured one. Waiting longer costs nothing while tokens come: only a replica that
     * stopped keeps a batch waiting the whole wait, once, before the rollback and the probe that ends the mode.
     */
    long waitNanos(long now) {
        long doubled = settings.waitNanos() << slowness;
        long learned = Math.max(lastTokenLag.timeoutNanos(), LATE_TOKEN_MARGIN * longestLag.valueAt(now));
        return Math.max(settings.waitNanos(), Math.min(probeWaitNanos, Math.max(doubled, learned)));
    }

    /**
     * Whether every replica whose token is missing is still catching up: within the wait, it sent a token for a
     * batch later than any before (it is behind, executing the batches before this one, not stopped), and the
     * batch has waited less than the probe's wait (half the view timeout). Such a token is late, not wrong:
     * rolling back for it would cost a view change and teach nothing, and under load (a loaded machine, a
     * collector pause) it made the crash profile change view every few hundred batches (issue 24). A replica
     * that stopped sending newer tokens, or one that keeps this batch waiting past the probe's wait, still
     * causes the rollback; a token that differs always does.
     */
    private boolean missingAreCatchingUp(Batch batch, long now) {
        if (now - batch.quorumAt > probeWaitNanos) {
            return false;
        }
        long recent = waitNanos(now);
        for (int replica : executionReplicas) {
            if (batch.tokens.containsKey(replica)) {
                continue;
            }
            long[] heard = progress.get(replica);
            if (heard == null || now - heard[1] > recent) {
                return false;
            }
        }
        return true;
    }

    private static boolean mismatched(Batch batch) {
        Token first = null;
        for (Token token : batch.tokens.values()) {
            if (first == null) {
                first = token;
            } else if (!token.matches(first)) {
                return true;
            }
        }
        return false;
    }

    private static int countMatching(Batch batch, Token token) {
        int count = 0;
        for (Token other : batch.tokens.values()) {
            if (other.matches(token)) {
                count++;
            }
        }
        return count;
    }
}
