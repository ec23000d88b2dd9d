package io.eve.verify.primarybackup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.protocol.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The primary-backup state machine alone, with a manual clock and recorded actions. */
class PrimaryBackupTest {
    private static final long MS = 1_000_000L;
    private static final int PRIMARY = 0;
    private static final int BACKUP = 1;
    private static final int CLIENT = 100;

    /** Records what the machine asks for. */
    static final class Recorder implements Actions {
        final List<String> log = new ArrayList<>();
        final List<Message> sent = new ArrayList<>();
        final List<Batch> executed = new ArrayList<>();
        final List<Boolean> sequential = new ArrayList<>();
        final List<Reply> released = new ArrayList<>();

        @Override
        public void send(int to, Message message) {
            sent.add(message);
            log.add("send " + to + " " + message.getClass().getSimpleName());
        }

        @Override
        public void execute(long view, long epoch, Batch batch, boolean isSequential) {
            executed.add(batch);
            sequential.add(isSequential);
            log.add("execute " + batch.seq() + (isSequential ? " sequential" : ""));
        }

        @Override
        public void rollbackTo(long seq) {
            log.add("rollback " + seq);
        }

        @Override
        public void markStable(long seq) {
            log.add("stable " + seq);
        }

        @Override
        public void transfer(int to, long sinceSeq, long view, long epoch) {
            log.add("transfer " + to + " since " + sinceSeq);
        }

        @Override
        public void apply(Message.StateTransfer transfer) {
            log.add("apply " + transfer.token().seq());
        }

        @Override
        public void release(Reply reply) {
            released.add(reply);
            log.add("release " + reply.requestSeq());
        }

        <T extends Message> List<T> sent(Class<T> type) {
            return sent.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    private final Recorder actions = new Recorder();
    private final AtomicLong seeds = new AtomicLong();

    private PrimaryBackup machine(int self) {
        PrimaryBackupConfig config = PrimaryBackupConfig.of(PRIMARY, BACKUP, self)
                .withTimeouts(10 * MS, 100 * MS)
                .withBatching(2, 1, 0);
        PrimaryBackup machine = new PrimaryBackup(config, actions, false, seeds::incrementAndGet);
        machine.start(0);
        return machine;
    }

    private static Message.ClientRequest request(long seq) {
        return new Message.ClientRequest(new Request(CLIENT, seq, new byte[] {(byte) seq}));
    }

    private static Token token(long seq, int variant) {
        return Token.of(seq, Digest.of(filled(variant)), Digest.ZERO, Digest.ZERO);
    }

    private static byte[] filled(int value) {
        byte[] bytes = new byte[Digest.LENGTH];
        java.util.Arrays.fill(bytes, (byte) value);
        return bytes;
    }

    private static Executed executed(Batch batch, int variant) {
        List<Reply> replies = batch.requests().stream()
                .map(r -> Reply.of(r, new byte[] {(byte) variant}))
                .toList();
        return new Executed(batch, token(batch.seq(), variant), replies, 1, false);
    }

    @Test
    void shouldCommitAndReleaseOnlyWhenBothTokensMatch() {
        PrimaryBackup primary = machine(PRIMARY);
        primary.onMessage(CLIENT, request(1), 1 * MS, 1);
        Batch batch = actions.executed.get(0);
        assertThat(actions.sent(Message.ExecuteBatch.class)).hasSize(1);
        primary.onExecuted(0, 0, executed(batch, 1), 1);
        assertThat(actions.released).as("not before the backup's token").isEmpty();
        primary.onMessage(BACKUP, new Message.BatchToken(0, 0, token(1, 1)), 2 * MS, 2);
        assertThat(actions.released).extracting(Reply::requestSeq).containsExactly(1L);
        assertThat(actions.log).containsSubsequence("stable 1", "release 1", "send 1 Commit");
        assertThat(primary.committed()).isEqualTo(1);
    }

    /** A primary batching up to 8 requests after 1 ms, 4 batches in flight, that has heard its backup. */
    private PrimaryBackup batchingPrimary() {
        PrimaryBackupConfig config = PrimaryBackupConfig.of(PRIMARY, BACKUP, PRIMARY)
                .withTimeouts(10 * MS, 100 * MS)
                .withBatching(4, 8, 1 * MS);
        PrimaryBackup primary = new PrimaryBackup(config, actions, false, seeds::incrementAndGet);
        primary.start(0);
        primary.onMessage(BACKUP, new Message.Heartbeat(0, 0), 0, 0);
        return primary;
    }

    @Test
    void shouldFillTheNextBatchWhileTheStageIsBusyAndCloseItWhenTheStageGoesIdle() {
        PrimaryBackup primary = batchingPrimary();
        primary.onMessage(CLIENT, request(1), 1 * MS, 1);
        assertThat(actions.executed)
                .as("an idle stage gets the first request at once")
                .hasSize(1);
        for (long seq = 2; seq <= 4; seq++) {
            primary.onMessage(CLIENT, request(seq), seq * MS, seq);
        }
        primary.onTick(20 * MS, 20);
        assertThat(actions.executed)
                .as("past the batching delay, but the stage is still running batch 1: keep filling")
                .hasSize(1);
        primary.onExecuted(0, 0, executed(actions.executed.get(0), 1), 21);
        assertThat(actions.executed)
                .as("the stage went idle while batch 1 waits for the backup's token")
                .hasSize(2);
        assertThat(actions.executed.get(1).requests())
                .extracting(Request::requestSeq)
                .containsExactly(2L, 3L, 4L);
        assertThat(actions.released).isEmpty();
    }

    @Test
    void shouldCloseTheNextBatchWhenAnOverlappingStageRunsTheLastRequestsOfTheOneInProgress() {
        PrimaryBackup primary = batchingPrimary();
        primary.onMessage(CLIENT, request(1), 1 * MS, 1);
        for (long seq = 2; seq <= 4; seq++) {
            primary.onMessage(CLIENT, request(seq), seq * MS, seq);
        }
        assertThat(actions.executed).as("batch 1 is running: keep filling").hasSize(1);
        primary.onStageDraining(2, 5);
        assertThat(actions.executed)
                .as("a hint about a batch that is not running changes nothing")
                .hasSize(1);
        primary.onStageDraining(1, 5);
        assertThat(actions.executed)
                .as("the stage runs batch 1's last requests: it can take the next batch now")
                .hasSize(2);
        primary.onMessage(CLIENT, request(5), 6 * MS, 6);
        assertThat(actions.executed)
                .as("batch 2 is dispatched and not draining: the stage is busy again")
                .hasSize(2);
        primary.onExecuted(0, 0, executed(actions.executed.get(0), 1), 7);
        assertThat(actions.executed).hasSize(2);
    }

    @Test
    void shouldRollBackAndReexecuteSequentiallyWhenTokensDiffer() {
        PrimaryBackup primary = machine(PRIMARY);
        primary.onMessage(CLIENT, request(1), 1 * MS, 1);
        Batch batch = actions.executed.get(0);
        primary.onExecuted(0, 0, executed(batch, 1), 1);
        primary.onMessage(BACKUP, new Message.BatchToken(0, 0, token(1, 2)), 2 * MS, 2);
        assertThat(actions.released).isEmpty();
        assertThat(actions.log).containsSubsequence("rollback 0", "send 1 Rollback", "execute 1 sequential");
        assertThat(primary.rollbacks()).isEqualTo(1);
        primary.onExecuted(0, 0, executed(batch, 9), 3);
        assertThat(actions.released)
                .as("an outcome of the discarded epoch is ignored")
                .isEmpty();
        primary.onExecuted(0, 1, executed(batch, 3), 3);
        primary.onMessage(BACKUP, new Message.BatchToken(0, 1, token(1, 3)), 3 * MS, 3);
        assertThat(actions.released).hasSize(1);
        assertThat(actions.released.get(0).payload()).containsExactly(3);
    }

    @Test
    void shouldMakeTheBackupTakeTheStateWhenSequentialReexecutionStillDiffers() {
        PrimaryBackup primary = machine(PRIMARY);
        primary.onMessage(CLIENT, request(1), 1 * MS, 1);
        Batch batch = actions.executed.get(0);
        primary.onExecuted(0, 0, executed(batch, 1), 1);
        primary.onMessage(BACKUP, new Message.BatchToken(0, 0, token(1, 2)), 2 * MS, 2);
        primary.onExecuted(0, 1, executed(batch, 1), 3);
        primary.onMessage(BACKUP, new Message.BatchToken(0, 1, token(1, 2)), 3 * MS, 3);
        assertThat(actions.released).hasSize(1);
        assertThat(actions.sent(Message.Rollback.class))
                .last()
                .satisfies(r -> assertThat(r.awaitTransfer()).isTrue());
        // The reply is released once the fence granted committing alone, after the transfer was ordered.
        assertThat(actions.log).containsSubsequence("transfer 1 since 0", "release 1");
    }

    @Test
    void shouldGoOnAloneWhenTheBackupFallsSilent() {
        PrimaryBackup primary = machine(PRIMARY);
        primary.onMessage(BACKUP, new Message.Heartbeat(0, 0), 0, 0);
        primary.onMessage(CLIENT, request(1), 1 * MS, 1);
        primary.onExecuted(0, 0, executed(actions.executed.get(0), 1), 1);
        primary.onTick(50 * MS, 50);
        assertThat(actions.released).isEmpty();
        primary.onTick(150 * MS, 150);
        assertThat(primary.peerAlive()).isFalse();
        assertThat(actions.released).hasSize(1);
        int before = actions.sent(Message.ExecuteBatch.class).size();
        primary.onMessage(CLIENT, request(2), 151 * MS, 151);
        assertThat(actions.sent(Message.ExecuteBatch.class))
                .as("no batch to a failed backup")
                .hasSize(before);
    }

    @Test
    void shouldTakeOverInTheNextViewAndRedirectClientsBeforeThat() {
        PrimaryBackup backup = machine(BACKUP);
        backup.onMessage(CLIENT, request(1), 1 * MS, 1);
        assertThat(actions.sent(Message.Redirect.class))
                .singleElement()
                .satisfies(r -> assertThat(r.primary()).isEqualTo(PRIMARY));
        Batch batch = new Batch(1, 1, 1, List.of(request(1).request()));
        backup.onMessage(PRIMARY, new Message.ExecuteBatch(0, 0, batch, false), 2 * MS, 2);
        backup.onExecuted(0, 0, executed(batch, 1), 2);
        assertThat(actions.sent(Message.BatchToken.class)).hasSize(1);
        backup.onTick(50 * MS, 50);
        assertThat(backup.isPrimary()).isFalse();
        assertThat(backup.lastViewChange()).as("no view change yet").isEmpty();
        backup.onTick(200 * MS, 200);
        assertThat(backup.isPrimary()).isTrue();
        assertThat(backup.view()).isEqualTo(1);
        assertThat(backup.lastViewChange()).startsWith("primary silent for ").endsWith("taking over in view 1");
        assertThat(backup.committed()).as("what it executed stands").isEqualTo(1);
        backup.onMessage(CLIENT, request(2), 201 * MS, 201);
        assertThat(actions.executed).last().satisfies(b -> assertThat(b.seq()).isEqualTo(2));
    }

    @Test
    void shouldSendTheChangesSinceAReturningReplicasStableBatch() {
        PrimaryBackup primary = machine(PRIMARY);
        primary.onTick(150 * MS, 150);
        primary.onMessage(BACKUP, new Message.JoinRequest(0, 0), 151 * MS, 151);
        assertThat(primary.peerAlive()).isTrue();
        assertThat(actions.log).last().isEqualTo("transfer 1 since 0");
        primary.onMessage(BACKUP, new Message.JoinRequest(0, 0), 152 * MS, 152);
        assertThat(actions.log.stream().filter(l -> l.startsWith("transfer")).count())
                .as("a repeated join inside the timeout is served once")
                .isEqualTo(1);
    }

    @Test
    void shouldStopWhenTransfersFromItsOwnCommittedBatchKeepFailing() {
        PrimaryBackupConfig config = PrimaryBackupConfig.of(PRIMARY, BACKUP, BACKUP)
                .withTimeouts(10 * MS, 100 * MS)
                .withBatching(2, 1, 0);
        PrimaryBackup joiner = new PrimaryBackup(config, actions, true, seeds::incrementAndGet);
        joiner.start(0);
        assertThat(actions.sent(Message.JoinRequest.class)).hasSize(1);
        Message.StateTransfer transfer =
                new Message.StateTransfer(0, 0, token(5, 1), new StateDelta(0, 5, new byte[] {1}));
        joiner.onMessage(PRIMARY, transfer, 1 * MS, 1);
        assertThat(actions.log).last().isEqualTo("apply 5");

        joiner.onApplied(transfer, false, "the delta produces root aa, expected bb");
        assertThat(actions.sent(Message.JoinRequest.class)).as("asks once more").hasSize(2);
        joiner.onMessage(PRIMARY, transfer, 2 * MS, 2);

        assertThatThrownBy(() -> joiner.onApplied(transfer, false, "the delta produces root aa, expected bb"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("committed different histories")
                .hasMessageContaining("--join");
    }

    @Test
    void shouldWaitLongerForAPeerNeverHeardSinceStart() {
        PrimaryBackup backup = machine(BACKUP);
        backup.onTick(150 * MS, 150);
        assertThat(backup.isPrimary())
                .as("one failure timeout of silence from a peer that may still be starting")
                .isFalse();
        backup.onTick((PrimaryBackup.STARTUP_GRACE_TIMEOUTS * 100 + 1) * MS, 400);
        assertThat(backup.isPrimary()).isTrue();
    }

    // ---- whole-cluster restart: both replicas joining from their disks --------------------------

    /** The peer, joining too, asks for the state at {@code atMillis}. */
    private static void peerJoins(Pair pair, long view, long stableSeq, long atMillis) {
        pair.fromPeer(new Message.JoinRequest(view, stableSeq), atMillis);
    }

    @Test
    void shouldTakeOverAsTheJoinerWithTheLongerCommittedHistoryWhenBothRestart() {
        Pair longer = Pair.restarted(Pair.SECOND, false, 5);
        peerJoins(longer, 0, 3, 10);
        assertThat(longer.machine.joining())
                .as("a peer that only asks for state for less than a failure timeout may be a resyncing backup")
                .isTrue();
        peerJoins(longer, 0, 3, 120);
        assertThat(longer.machine.isPrimary()).isTrue();
        assertThat(longer.machine.view()).as("above both announced views").isEqualTo(1);
        assertThat(longer.machine.lastViewChange())
                .isEqualTo("both replicas are joining; this one committed up to batch 5, its peer up to 3: taking"
                        + " over in view 1 and sending it the state");
        assertThat(longer.machine.committed()).isEqualTo(5);
        assertThat(longer.actions.log).last().isEqualTo("transfer 0 since 3");
        assertThat(longer.released()).isZero();
    }

    @Test
    void shouldWaitForThePeerWhenItsCommittedHistoryIsLonger() {
        Pair shorter = Pair.restarted(Pair.FIRST, false, 3);
        for (long at = 10; at <= 400; at += 10) {
            peerJoins(shorter, 0, 5, at);
            shorter.tick(at);
        }
        assertThat(shorter.machine.joining()).isTrue();
        assertThat(shorter.machine.isPrimary()).isFalse();
        assertThat(shorter.actions.log).noneMatch(line -> line.startsWith("transfer"));
        assertThat(shorter.actions.sent(Message.JoinRequest.class))
                .as("it keeps asking for the state")
                .hasSizeGreaterThan(30)
                .allMatch(join -> join.stableSeq() == 3);
    }

    @Test
    void shouldBreakATieForThePrimaryOfTheLaterAnnouncedView() {
        Pair first = Pair.restarted(Pair.FIRST, false, 5);
        Pair second = Pair.restarted(Pair.SECOND, false, 5);
        for (long at : new long[] {10, 120}) {
            peerJoins(first, 0, 5, at);
            peerJoins(second, 0, 5, at);
        }
        assertThat(first.machine.isPrimary()).as("primary of view 0").isTrue();
        assertThat(second.machine.isPrimary()).isFalse();

        Pair secondAgain = Pair.restarted(Pair.SECOND, false, 5);
        peerJoins(secondAgain, 3, 5, 10);
        peerJoins(secondAgain, 3, 5, 120);
        assertThat(secondAgain.machine.isPrimary())
                .as("node 1 is the primary of view 3, the later view")
                .isTrue();
        assertThat(secondAgain.machine.view()).isEqualTo(5);
    }

    @Test
    void shouldNotTakeOverAsAJoinerWhenThePeerDoesMoreThanAskForState() {
        Pair joiner = Pair.restarted(Pair.SECOND, false, 5);
        peerJoins(joiner, 0, 3, 10);
        joiner.fromPeer(new Message.Heartbeat(0, 3), 60);
        peerJoins(joiner, 0, 3, 120);
        assertThat(joiner.machine.isPrimary()).isFalse();
        peerJoins(joiner, 0, 3, 230);
        assertThat(joiner.machine.isPrimary()).isTrue();
    }

    @Test
    void shouldTakeOverAsTheLongerJoinerOnlyWithTheWitnessGrant() {
        Pair longer = Pair.restarted(Pair.SECOND, true, 5);
        peerJoins(longer, 0, 3, 10);
        peerJoins(longer, 0, 3, 120);
        assertThat(longer.machine.isPrimary()).isFalse();
        assertThat(longer.lastFenceRequest()).satisfies(r -> {
            assertThat(r.solo()).isTrue();
            assertThat(r.view()).isEqualTo(1);
        });
        longer.witnessGrants(121);
        assertThat(longer.machine.isPrimary()).isTrue();
        assertThat(longer.machine.soloHeld()).isTrue();
        assertThat(longer.actions.log).last().isEqualTo("transfer 0 since 3");
    }

    @Test
    void shouldStayJoiningWhenTheWitnessRefusesTheLongerJoiner() {
        Pair longer = Pair.restarted(Pair.SECOND, true, 5);
        peerJoins(longer, 0, 3, 10);
        peerJoins(longer, 0, 3, 120);
        longer.witnessRefuses(2, Pair.FIRST, 121);
        assertThat(longer.machine.isPrimary()).isFalse();
        assertThat(longer.machine.joining()).isTrue();
        assertThat(longer.actions.log).noneMatch(line -> line.startsWith("transfer"));
    }

    @Test
    void shouldAskAboveTheViewTheWitnessReportsWhenItRefusesTheLongerJoiner() {
        Pair longer = Pair.restarted(Pair.SECOND, true, 5);
        peerJoins(longer, 0, 3, 10);
        peerJoins(longer, 0, 3, 120);
        Message.FenceRequest first = longer.lastFenceRequest();
        longer.machine.onMessage(
                Pair.WITNESS, new Message.FenceAnswer(first.requestId(), 4, false, Pair.FIRST), 121 * Pair.MS, 121);
        peerJoins(longer, 0, 3, 130);
        assertThat(longer.lastFenceRequest().view())
                .as("the restarted replica's view 0 is below the witness's view 4")
                .isEqualTo(5);
        longer.witnessGrants(131);
        assertThat(longer.machine.isPrimary()).isTrue();
        assertThat(longer.machine.view()).isEqualTo(5);
    }
}
