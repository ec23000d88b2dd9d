package io.eve.verify.primarybackup;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.protocol.Message;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test fixture: one primary-backup state machine of the pair (node 0 and node 1, witness node 2 when fenced),
 * with recorded actions, a manual clock in milliseconds, and helpers that build what the peer, the stage and
 * the witness would send. 10 ms heartbeats, 100 ms failure timeout, one request per batch.
 */
final class Pair {
    static final long MS = 1_000_000L;
    static final int FIRST = 0;
    static final int SECOND = 1;
    static final int WITNESS = 2;
    static final int CLIENT = 100;

    final PrimaryBackupTest.Recorder actions = new PrimaryBackupTest.Recorder();
    final PrimaryBackup machine;
    final int self;
    final int peer;
    private final AtomicLong seeds = new AtomicLong();

    private Pair(int self, boolean witness, boolean joining, long recoveredSeq) {
        this(self, witness, joining, recoveredSeq, recoveredSeq > 0);
    }

    private Pair(int self, boolean witness, boolean joining, long recoveredSeq, boolean everyAcknowledged) {
        this.self = self;
        this.peer = self == FIRST ? SECOND : FIRST;
        PrimaryBackupConfig config = PrimaryBackupConfig.of(FIRST, SECOND, self)
                .withTimeouts(10 * MS, 100 * MS)
                .withBatching(4, 1, 0);
        if (witness) {
            config = config.withWitness(WITNESS);
        }
        machine = new PrimaryBackup(config, actions, joining, recoveredSeq, seeds::incrementAndGet);
        if (everyAcknowledged) {
            machine.recoveredEveryAcknowledgedBatch();
        }
        machine.start(0);
    }

    /** Node {@code self}, started with its peer, no witness. */
    static Pair of(int self) {
        return new Pair(self, false, false, 0);
    }

    /** Node {@code self}, started with its peer, fenced by the witness. */
    static Pair withWitness(int self) {
        return new Pair(self, true, false, 0);
    }

    /** Node {@code self} restarted from its disk ({@code storage.sync=batch}), committed up to {@code recoveredSeq}. */
    static Pair restarted(int self, boolean witness, long recoveredSeq) {
        return new Pair(self, witness, true, recoveredSeq);
    }

    /** Node {@code self} restarted from a disk forced on an interval, which holds its batches up to {@code seq}. */
    static Pair restartedFromAnIntervalSync(int self, boolean witness, long seq) {
        return new Pair(self, witness, true, seq, false);
    }

    void fromPeer(Message message, long atMillis) {
        machine.onMessage(peer, message, atMillis * MS, atMillis);
    }

    void fromClient(long requestSeq, long atMillis) {
        machine.onMessage(CLIENT, request(requestSeq), atMillis * MS, atMillis);
    }

    void tick(long atMillis) {
        machine.onTick(atMillis * MS, atMillis);
    }

    /** The stage executed {@code batch} in the machine's current view and epoch, with outcome {@code variant}. */
    void executed(Batch batch, int variant, long epoch) {
        machine.onExecuted(machine.view(), epoch, Pair.executed(batch, variant), 0);
    }

    /** The last request the machine sent the witness. */
    Message.FenceRequest lastFenceRequest() {
        return actions.sent(Message.FenceRequest.class).stream()
                .reduce((first, second) -> second)
                .orElseThrow(() -> new AssertionError("no request to the witness: " + actions.log));
    }

    void fromWitness(Message message, long atMillis) {
        machine.onMessage(WITNESS, message, atMillis * MS, atMillis);
    }

    /** The witness grants the last request (solo for its view, held by this node). */
    void witnessGrants(long atMillis) {
        Message.FenceRequest request = lastFenceRequest();
        machine.onMessage(
                WITNESS,
                new Message.FenceAnswer(request.requestId(), request.view(), request.solo(), self),
                atMillis * MS,
                atMillis);
    }

    /** The witness refuses the last request: node {@code holder} holds solo in {@code view}. */
    void witnessRefuses(long view, int holder, long atMillis) {
        Message.FenceRequest request = lastFenceRequest();
        machine.onMessage(
                WITNESS, new Message.FenceAnswer(request.requestId(), view, true, holder), atMillis * MS, atMillis);
    }

    Batch lastExecuted() {
        return actions.executed.get(actions.executed.size() - 1);
    }

    long released() {
        return actions.released.size();
    }

    static Message.ClientRequest request(long seq) {
        return new Message.ClientRequest(new Request(CLIENT, seq, new byte[] {(byte) seq}));
    }

    static Batch batch(long seq) {
        return new Batch(seq, seq, seq, List.of(request(seq).request()));
    }

    static Token token(long seq, int variant) {
        byte[] bytes = new byte[Digest.LENGTH];
        Arrays.fill(bytes, (byte) variant);
        return Token.of(seq, Digest.of(bytes), Digest.ZERO, Digest.ZERO);
    }

    static Executed executed(Batch batch, int variant) {
        List<Reply> replies = batch.requests().stream()
                .map(r -> Reply.of(r, new byte[] {(byte) variant}))
                .toList();
        return new Executed(batch, token(batch.seq(), variant), replies, 1, false);
    }

    static Message.StateTransfer transfer(long view, long epoch, long fromSeq, long toSeq) {
        return new Message.StateTransfer(
                view, epoch, token(toSeq, 1), new StateDelta(fromSeq, toSeq, new byte[] {(byte) toSeq}));
    }
}
