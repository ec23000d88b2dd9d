package io.eve.verify.quorum;

import static io.eve.verify.quorum.VerifierTest.MS;
import static io.eve.verify.quorum.VerifierTest.token;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.JoinQuery;
import io.eve.protocol.Message.JoinState;
import io.eve.protocol.Message.ViewChange;
import io.eve.verify.quorum.RejoinTest.Sent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two verifiers rejoining at once (docs/quorum.md, "Two joiners at once"): five verifiers with {@code u = 2},
 * {@code r = 0}, so {@code nV - u = 3}. A verifier that is itself recovering answers a join query with what it
 * knows, nothing, and sets its filter for the querier; the querier adopts once every other verifier answered and
 * at least {@code nV - u} of the answers are real.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RejoinTwoFaultsTest {
    private static final long NONCE = RejoinTest.NONCE;
    private static final int[] PROCESSES = {0, 1, 2, 3, 4};

    private final List<Sent> sent = new ArrayList<>();
    private final Token first = token(1, 1, null);
    private final Token second = token(2, 2, first);

    private Verifier verifier(int self, boolean recovering) {
        QuorumConfig config =
                new QuorumConfig(2, 0, PROCESSES, PROCESSES, self, 500_000_000L, 50_000_000L, 4, 64, 2_000_000L);
        return RejoinTest.started(config.withExtraProtection(ExtraProtectionConfig.OFF), sent, recovering);
    }

    /** {@code from}'s answer to the joiner: in view 0, {@code token} committed on the votes of 0, 1 and 2. */
    private static JoinState committed(int from, Token token) {
        List<Message> votes = new ArrayList<>();
        for (int voter = 0; voter < 3; voter++) {
            votes.add(new CommitVote(0, voter, token));
        }
        return new JoinState(from, NONCE, 0, false, 0, token, votes);
    }

    /** The answer of a verifier that is rejoining itself. */
    private static JoinState recovering(int from) {
        return new JoinState(from, NONCE, -1, true, ViewChanges.RECOVERING, ViewChanges.ORIGIN, List.of());
    }

    @Test
    void shouldAnswerAJoinQueryWhileItIsRecoveringItselfWithNoView() {
        Verifier joiner = verifier(4, true);
        sent.clear();
        joiner.onMessage(3, new JoinQuery(3, 7), MS);
        assertThat(sent)
                .containsExactly(new Sent(
                        3, new JoinState(4, 7, -1, true, ViewChanges.RECOVERING, ViewChanges.ORIGIN, List.of())));
        sent.clear();
        joiner.onMessage(5, new JoinQuery(5, 8), MS);
        assertThat(sent).as("process 5 is no verifier").isEmpty();
    }

    @Test
    void shouldRejoinWhileAnotherVerifierIsRecoveringOnceEveryOtherOneAnswered() {
        Verifier joiner = verifier(4, true);
        joiner.onMessage(0, committed(0, first), MS);
        joiner.onMessage(1, committed(1, second), MS);
        joiner.onMessage(2, committed(2, first), MS);
        assertThat(joiner.recovering()).as("verifier 3 has not answered").isTrue();
        joiner.onMessage(3, recovering(3), MS);
        assertThat(joiner.recovering()).isFalse();
        assertThat(joiner.view()).isZero();
        assertThat(joiner.committedSeq()).as("the highest proven commit").isEqualTo(2);
        assertThat(joiner.viewChangesStarted()).isZero();
    }

    @Test
    void shouldNotRejoinWhenFewerThanNvMinusUAnswersAreReal() {
        Verifier joiner = verifier(4, true);
        joiner.onMessage(0, committed(0, first), MS);
        joiner.onMessage(1, committed(1, first), MS);
        joiner.onMessage(2, recovering(2), MS);
        joiner.onMessage(3, recovering(3), MS);
        assertThat(joiner.recovering())
                .as("three of five recovering at once is more than u = 2 faults: two real answers prove nothing")
                .isTrue();
        joiner.onMessage(2, committed(2, first), MS);
        assertThat(joiner.recovering()).as("2 answered again, in service now").isFalse();
    }

    @Test
    void shouldNotLetARecoveringAnswerDeliveredLateReplaceARealOne() {
        Verifier joiner = verifier(4, true);
        joiner.onMessage(3, committed(3, second), MS);
        joiner.onMessage(3, recovering(3), MS);
        joiner.onMessage(0, committed(0, first), MS);
        joiner.onMessage(1, recovering(1), MS);
        joiner.onMessage(2, committed(2, first), MS);
        assertThat(joiner.recovering()).isFalse();
        assertThat(joiner.committedSeq())
                .as("3's real answer still counts: three real answers, the highest proof among them")
                .isEqualTo(2);
    }

    @Test
    void shouldFilterTheViewChangesOfAVerifierItAnsweredWhileRecovering() {
        Verifier joiner = verifier(4, true);
        joiner.onMessage(3, new JoinQuery(3, 7), MS);
        joiner.onMessage(0, committed(0, first), MS);
        joiner.onMessage(1, committed(1, first), MS);
        joiner.onMessage(2, committed(2, first), MS);
        joiner.onMessage(3, recovering(3), MS);
        assertThat(joiner.recovering()).isFalse();
        long ignored = joiner.ignored();
        // A view change of 3's earlier life, delivered now: it may not cover what 3's new life votes.
        joiner.onMessage(3, new ViewChange(1, 3, -1, ViewChanges.ORIGIN, List.of()), 2 * MS);
        assertThat(joiner.ignored()).isEqualTo(ignored + 1);
        // 3's new life took part in no view below 2 (it announces so): its view change for 1 counts again.
        joiner.onMessage(
                3, new JoinState(3, 7, 2, false, ViewChanges.RECOVERING, ViewChanges.ORIGIN, List.of()), 3 * MS);
        joiner.onMessage(3, new ViewChange(1, 3, -1, ViewChanges.ORIGIN, List.of()), 3 * MS);
        assertThat(joiner.ignored()).isEqualTo(ignored + 1);
    }
}
