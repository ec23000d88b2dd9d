package io.eve.verify.quorum;

import static io.eve.verify.quorum.VerifierTest.MS;
import static io.eve.verify.quorum.VerifierTest.token;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.protocol.Message.JoinQuery;
import io.eve.protocol.Message.JoinState;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.ViewChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * A view change of a restarted verifier's earlier life, delivered after the new life voted (a review of
 * 2026-11-27 found it counted; docs/quorum.md, "Counting again without a rejoin", rule F). Crash profile: verifier
 * 2 is the only fault. Its earlier life, cut off in view 0, left alone for views 1 to 4 and crashed; its
 * {@code ViewChange(4)} is delayed. The new life's query reaches 0 and 1 while they change view; everything it
 * announces to 1 is delayed; it enters view 3, where it and 0 commit token T for batch 1, which 1 never sees.
 */
class StaleViewChangeTest {
    record Env(int from, int to, Message message) {}

    final List<Env> pending = new ArrayList<>();
    final Map<Integer, Verifier> verifiers = new TreeMap<>();
    long now = 0;

    Verifier make(int self, boolean recovering, long nonce) {
        Verifier v = new Verifier(
                QuorumConfig.crash(new int[] {0, 1, 2}, self),
                (to, m) -> pending.add(new Env(self, to, m)),
                Evidence.PLAIN,
                recovering,
                nonce);
        return v;
    }

    /** Delivers pending verifier-to-verifier messages matching {@code allow} until none is left. */
    void deliver(Predicate<Env> allow) {
        boolean progress = true;
        while (progress) {
            progress = false;
            for (int i = 0; i < pending.size(); i++) {
                Env e = pending.get(i);
                Verifier to = verifiers.get(e.to());
                if (to != null && allow.test(e)) {
                    pending.remove(i);
                    to.onMessage(e.from(), e.message(), now);
                    progress = true;
                    break;
                }
            }
        }
    }

    static boolean between(Env e, int a, int b) {
        return (e.from() == a && e.to() == b) || (e.from() == b && e.to() == a);
    }

    /**
     * docs/quorum.md, "No running ahead alone": a verifier whose new view does not start tries the next one only
     * once {@code nV - u} verifiers, itself included, asked for its target or a later one.
     */
    @Test
    void shouldTryTheNextViewOnlyOnceAQuorumAskedForItsTarget() {
        Verifier alone = make(2, false, 0);
        alone.start(0);
        alone.onMessage(0, new Verify(0, token(1, 5, null)), MS);
        for (long at = 1; at < 40_000; at += 50) {
            alone.onTick(at * MS);
        }
        assertThat(viewChangesFrom(2)).as("alone: view 1, and no further").containsExactly(1L);

        pending.clear();
        alone.onMessage(1, new ViewChange(1, 1, -1, ViewChanges.ORIGIN, java.util.List.of()), 40_000 * MS);
        for (long at = 40_000; at < 50_000; at += 50) {
            alone.onTick(at * MS);
        }
        assertThat(viewChangesFrom(2))
                .as("with 1's view change for view 1 (nV - u = 2 there), the next views when none starts")
                .contains(2L);
    }

    private List<Long> viewChangesFrom(int verifier) {
        return pending.stream()
                .filter(e -> e.from() == verifier && e.message() instanceof ViewChange)
                .map(e -> ((ViewChange) e.message()).newView())
                .distinct()
                .toList();
    }

    @Test
    void shouldNotCountAViewChangeOfAnEarlierLifeDeliveredAfterTheNewLifeVoted() {
        Token t = token(1, 11, null);

        // Earlier life of verifier 2 (J0): in view 0 with batch 1 pending and nothing prepared, it left for view 4;
        // every message lost or delayed. Its VC(4) is the stale message. (Until 2026-11-28 J0 got there alone, by
        // its own timeouts; a verifier no longer runs ahead of the others alone (docs/quorum.md, "No running ahead
        // alone"), but a view change it sent following others, then delayed, is the same message, so it is
        // built here as J0 sent it.)
        Verifier j0 = make(2, false, 0);
        j0.start(0);
        j0.onMessage(0, new Verify(0, token(1, 5, null)), 1 * MS);
        for (long at = 1; at < 40_000; at += 50) {
            j0.onTick(at * MS);
        }
        ViewChange first = pending.stream()
                .filter(e -> e.from() == 2 && e.message() instanceof ViewChange)
                .map(e -> (ViewChange) e.message())
                .findFirst()
                .orElseThrow();
        assertThat(pending)
                .as("alone, J0 asks for view 1 and holds there")
                .noneMatch(e -> e.message() instanceof ViewChange c && c.newView() > 1);
        ViewChange stale = new ViewChange(4, 2, first.certificateView(), first.certificate(), first.evidence());
        pending.clear();

        // Verifiers 0 and 1 in view 0, batch 1 pending: they time out and leave for view 1.
        Verifier v0 = make(0, false, 0);
        Verifier v1 = make(1, false, 0);
        verifiers.put(0, v0);
        verifiers.put(1, v1);
        now = 50_000 * MS;
        v0.start(now);
        v1.start(now);
        v0.onMessage(0, new Verify(0, token(1, 5, null)), now);
        v1.onMessage(0, new Verify(0, token(1, 5, null)), now);
        now += 3_000 * MS;
        v0.onTick(now);
        v1.onTick(now);
        assertThat(v0.changingView()).isTrue();
        assertThat(v1.changingView()).isTrue();

        // J restarts without memory; its query reaches 0 and 1 while they change view (no rule-F floor).
        Verifier j = make(2, true, 77);
        verifiers.put(2, j);
        j.start(now);
        deliver(e -> e.from() == 2 && e.message() instanceof JoinQuery);
        deliver(e -> e.to() == 2 && e.message() instanceof JoinState);
        // View 1 starts between 0 and 1; J refuses it (E = 1).
        deliver(e -> e.to() != 2 && e.from() != 2);
        assertThat(v1.view()).isEqualTo(1);
        deliver(e -> true);
        assertThat(j.recovering()).isTrue();

        // Everything J announces to 1 is delayed from here on.
        Predicate<Env> notAnnouncementTo1 = e -> !(e.from() == 2
                && e.to() == 1
                && (e.message() instanceof JoinState || e.message() instanceof JoinQuery));
        // J's fallback view change (-2) makes 0 and 1 move to 2 (leader 2 = J, recovering), then to 3.
        for (int k = 0; k < 200 && j.view() < 3; k++) {
            now += 100 * MS;
            j.onTick(now);
            v0.onTick(now);
            v1.onTick(now);
            deliver(notAnnouncementTo1);
        }
        assertThat(j.recovering()).isFalse();
        assertThat(j.view()).isEqualTo(3);
        assertThat(v0.view()).isEqualTo(3);
        assertThat(v1.view()).isEqualTo(3);

        // View 3: T committed at batch 1 by J and 0; 1 sees nothing of it.
        j.onMessage(0, new Verify(3, t), now);
        j.onMessage(1, new Verify(3, t), now);
        v0.onMessage(0, new Verify(3, t), now);
        v0.onMessage(1, new Verify(3, t), now);
        deliver(e -> between(e, 0, 2));
        assertThat(v0.committedSeq()).isEqualTo(1);
        assertThat(v0.committedToken()).isEqualTo(t);
        assertThat(j.committedToken()).isEqualTo(t);

        // The earlier life's ViewChange(4) reaches 1, the leader of view 4, with nothing else.
        pending.removeIf(e -> e.to() == 1 && e.from() != 2);
        long ignored = v1.ignored();
        v1.onMessage(2, stale, now);
        assertThat(v1.ignored())
                .as("1 answered the new life's query: until it hears what that life did, none of 2's counts")
                .isEqualTo(ignored + 1);
        assertThat(v1.view()).isEqualTo(3);
        assertThat(v1.changingView())
                .as("so it neither follows it nor builds a view 4 that would start below T")
                .isFalse();
    }
}
