package io.eve.bench.ratis;

import io.eve.ExecutionContext;
import io.eve.merkle.Digest;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.samples.kv.KeyValueStore;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * A Ratis state machine around the sample {@link KeyValueStore}: every committed log entry is one
 * key-value request, executed at once, in log order, on Ratis' apply thread (what any Raft service does).
 * The request's context is derived from its log index, so every node computes the same state.
 *
 * <p>Called by Ratis' single state-machine updater thread; {@link #applied()} from any thread.
 */
final class KvStateMachine extends BaseStateMachine {
    private final KeyValueStore store;
    private volatile long applied;

    KvStateMachine(KeyValueStore store) {
        this.store = store;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext transaction) {
        LogEntryProto entry = transaction.getLogEntry();
        long index = entry.getIndex();
        byte[] request = entry.getStateMachineLogEntry().getLogData().toByteArray();
        byte[] reply = store.execute(request, new ExecutionContext(index, 0, 0, index, 0, index));
        updateLastAppliedTermIndex(entry.getTerm(), index);
        applied++;
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply)));
    }

    /** Requests applied so far. */
    long applied() {
        return applied;
    }

    /** The store's state root now (call only when nothing is being applied). */
    Digest root() {
        ObjectGraphState state = store.state();
        return state.seal(state.sealedSeq() + 1);
    }
}
