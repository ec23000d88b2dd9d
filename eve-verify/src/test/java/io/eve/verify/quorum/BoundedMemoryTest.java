package io.eve.verify.quorum;

import static io.eve.verify.quorum.VerifierTest.token;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.batch.Batch;
import io.eve.config.ClusterConfig;
import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.ExecuteBatch;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.VerifyResponse;
import io.eve.protocol.Message.ViewChange;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/quorum.md, "Bounded memory": a hostile execution replica or verifier that sends messages for ever new
 * batches or views leaves a verifier's and an execution replica's memory within the configured windows, and the
 * verifier still agrees afterwards.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class BoundedMemoryTest {
    static final long MS = 1_000_000L;
    static final int WINDOW = 64;

    final List<VerifierTest.Sent> sent = new ArrayList<>();
    final Refusals refusals = new Refusals();

    Verifier bft(int self) {
        QuorumConfig config =
                QuorumConfig.bft(new int[] {0, 1, 2, 3}, self).withBounds(new ClusterConfig.Bounds(WINDOW, 8, 16));
        Verifier verifier = new Verifier(
                config, (to, m) -> sent.add(new VerifierTest.Sent(to, m)), Evidence.PLAIN, false, 0, null, refusals);
        verifier.start(0);
        return verifier;
    }

    /** Batch 1 agreed the bft way: two Verify, then Prepare and CommitVote from two other verifiers. */
    static void agree(Verifier verifier, Token token, long now) {
        verifier.onMessage(1, new Verify(0, token), now);
        verifier.onMessage(2, new Verify(0, token), now);
        verifier.onMessage(1, new Prepare(0, 1, token), now);
        verifier.onMessage(2, new Prepare(0, 2, token), now);
        verifier.onMessage(1, new CommitVote(0, 1, token), now);
        verifier.onMessage(2, new CommitVote(0, 2, token), now);
    }

    @Test
    void shouldKeepAMillionFarFutureVerifiesOutOfTheSlotsAndStillCommit() {
        Verifier verifier = bft(0);
        int flood = 1_000_000;
        for (int i = 0; i < flood; i++) {
            // Distinct batches, every one beyond the window: each would have been a slot of its own.
            verifier.onMessage(2, new Verify(0, token(WINDOW + 1 + i, i, null)), MS);
        }
        assertThat(verifier.pendingBatches()).isZero();
        assertThat(refusals.count(Refusals.Reason.FUTURE_BATCH)).isEqualTo(flood);

        // Inside the window the hostile replica can fill at most the window's worth of slots.
        for (int seq = 2; seq <= WINDOW + 10; seq++) {
            verifier.onMessage(2, new Verify(0, token(seq, seq, null)), MS);
        }
        assertThat(verifier.pendingBatches()).isEqualTo(WINDOW - 1);
        assertThat(refusals.count(Refusals.Reason.FUTURE_BATCH)).isEqualTo(flood + 10);

        Token first = token(1, 1, null);
        agree(verifier, first, 2 * MS);
        assertThat(verifier.committedSeq())
                .as("agreement goes on after the flood")
                .isEqualTo(1);
        assertThat(verifier.changingView()).isFalse();
        assertThat(verifier.pendingBatches()).isLessThanOrEqualTo(WINDOW);
    }

    @Test
    void shouldRefuseFarFuturePreparesAndVotesOfAHostileVerifier() {
        Verifier verifier = bft(0);
        for (int i = 0; i < 100_000; i++) {
            Token far = token(WINDOW + 1 + i, i, null);
            verifier.onMessage(3, new Prepare(0, 3, far), MS);
            verifier.onMessage(3, new CommitVote(0, 3, far), MS);
        }
        assertThat(verifier.pendingBatches()).isZero();
        assertThat(refusals.count(Refusals.Reason.FUTURE_BATCH)).isEqualTo(200_000);
        agree(verifier, token(1, 1, null), 2 * MS);
        assertThat(verifier.committedSeq()).isEqualTo(1);
    }

    @Test
    void shouldRefuseViewChangesBeyondTheViewWindow() {
        Verifier verifier = bft(1); // verifier 1 leads view 1, so it would keep view changes to build a NewView
        for (long view = 9; view < 10_000; view++) {
            verifier.onMessage(3, new ViewChange(view, 3, -1, ViewChanges.ORIGIN, List.of()), MS);
        }
        assertThat(refusals.count(Refusals.Reason.FUTURE_VIEW)).isEqualTo(10_000 - 9);
        assertThat(verifier.view()).isZero();
        assertThat(verifier.changingView()).isFalse();
        // Within the window a view change is taken: with another, r + 1 = 2 verifiers moved on, so it follows.
        verifier.onMessage(3, new ViewChange(1, 3, -1, ViewChanges.ORIGIN, List.of()), MS);
        verifier.onMessage(2, new ViewChange(1, 2, -1, ViewChanges.ORIGIN, List.of()), MS);
        assertThat(verifier.view()).as("the leader of view 1 started it").isEqualTo(1);
    }

    @Test
    void shouldBoundTheVotesAndBatchesAnExecutionReplicaKeepsForHostilePeers() {
        QuorumConfig config = QuorumConfig.bft(new int[] {0, 1, 2, 3}, 1)
                .withBatching(2, 1, 0)
                .withBounds(new ClusterConfig.Bounds(WINDOW, 8, 16));
        List<VerifierTest.Sent> out = new ArrayList<>();
        ExecutionReplica replica = new ExecutionReplica(
                config,
                new ExecutionActions() {
                    @Override
                    public void send(int to, Message message) {
                        out.add(new VerifierTest.Sent(to, message));
                    }

                    @Override
                    public void execute(long epoch, Batch batch, boolean sequential) {}

                    @Override
                    public void rollbackTo(long seq) {}

                    @Override
                    public void markStable(long seq) {}

                    @Override
                    public void serveTransfer(int to, long baseSeq, Token agreed) {}

                    @Override
                    public void apply(Message.ChainTransfer transfer) {}

                    @Override
                    public void replyFromState(long clientId, long requestSeq) {}

                    @Override
                    public void release(io.eve.Reply reply) {}

                    @Override
                    public void resend(io.eve.Reply reply) {}
                },
                false,
                null,
                List.of(),
                () -> 7L,
                refusals);
        replica.start(0);
        int flood = 200_000;
        for (int i = 0; i < flood; i++) {
            // A hostile verifier votes for ever new batches and views.
            replica.onMessage(3, new VerifyResponse(i % 7, token(1 + i, i, null), false), MS, 0);
        }
        assertThat(replica.pendingVotes()).isEqualTo(WINDOW);
        assertThat(refusals.count(Refusals.Reason.VOTE_EVICTED)).isEqualTo(flood - WINDOW);
        for (int i = 0; i < flood; i++) {
            // The view's primary (replica 0) numbers batches far ahead.
            Batch batch = new Batch(WINDOW + 1 + i, 0L, 7L, List.of());
            replica.onMessage(0, new ExecuteBatch(0, 0, batch, false), MS, 0);
        }
        assertThat(replica.bufferedBatches()).isZero();
        assertThat(refusals.count(Refusals.Reason.FUTURE_EXECUTE)).isEqualTo(flood);
    }
}
