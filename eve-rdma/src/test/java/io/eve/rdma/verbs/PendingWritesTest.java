package io.eve.rdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.rdma.FabricException;
import org.junit.jupiter.api.Test;

class PendingWritesTest {
    @Test
    void shouldCompleteEveryEarlierWriteWithASignalledCompletion() {
        PendingWrites pending = new PendingWrites(1);
        PendingWrites.Posted first = pending.add();
        PendingWrites.Posted second = pending.add();
        PendingWrites.Posted third = pending.add();
        assertThat(pending.onCompletion(second.wrId(), null)).isTrue();
        assertThat(first.done()).isCompleted();
        assertThat(second.done()).isCompleted();
        assertThat(third.done()).isNotDone();
        assertThat(pending.outstanding()).isEqualTo(1);
    }

    @Test
    void shouldFailOutstandingAndLaterWritesOnceThePathBreaks() {
        PendingWrites pending = new PendingWrites(1);
        PendingWrites.Posted outstanding = pending.add();
        pending.failAll(new FabricException("broken"));
        assertThat(outstanding.done()).isCompletedExceptionally();
        assertThat(pending.add().done()).isCompletedExceptionally();
    }

    @Test
    void shouldIgnoreACompletionOfAnotherQueuePairThatSharedTheNumber() {
        PendingWrites old = new PendingWrites(7);
        PendingWrites.Posted oldWrite = old.add();
        PendingWrites current = new PendingWrites(8);
        PendingWrites.Posted write = current.add();

        assertThat(current.onCompletion(oldWrite.wrId(), new FabricException("IBV_WC_WR_FLUSH_ERR")))
                .isFalse();
        assertThat(current.onCompletion(oldWrite.wrId() + 1000, null)).isFalse();

        assertThat(write.done()).isNotDone();
        assertThat(current.failure()).isNull();
        assertThat(current.staleCompletions()).isEqualTo(2);
        assertThat(current.onCompletion(write.wrId(), null)).isTrue();
        assertThat(write.done()).isCompleted();
    }

    @Test
    void shouldGiveIdsThatNameTheirPathAndGrowWithinIt() {
        WorkRequestIds ids = new WorkRequestIds(5);
        long first = ids.next();
        long second = ids.next();
        assertThat(second).isGreaterThan(first);
        assertThat(WorkRequestIds.pathOf(first)).isEqualTo(5);
        assertThat(ids.owns(second)).isTrue();
        assertThat(new WorkRequestIds(6).owns(first)).isFalse();
        // Ids of the first paths never collide with the small ids of the old scheme (1, 2, ...).
        assertThat(first).isGreaterThan(1L << WorkRequestIds.COUNTER_BITS);
        assertThat(new WorkRequestIds(WorkRequestIds.MAX_PATH + 1).path()).isEqualTo(1);
        assertThat(first).isPositive();
        assertThat(new WorkRequestIds(WorkRequestIds.MAX_PATH).next()).isPositive();
    }
}
