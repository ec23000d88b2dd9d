package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.StateException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Batch n + 1 writing while batch n is still open (VersionedState#openNext): each write belongs to the
 * batch of the thread that made it, every version equals the one sequential execution seals, and a write
 * to an object of the other open batch is reported and undone with both batches.
 */
class OverlappingBatchesTest {
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    private static ObjectGraphState newBank(int n) {
        ObjectGraphState state = ObjectGraphState.builder()
                .manualTracking(true)
                .register(Account.class, Bank.class, Directory.class)
                .build();
        Bank bank = new Bank(n);
        for (int i = 0; i < n; i++) {
            bank.accounts[i] = new Account("owner" + i, 100);
        }
        state.setRoot("bank", bank);
        Directory directory = Directory.create();
        state.setRoot("directory", directory);
        state.seal(0);
        return state;
    }

    private static void deposit(ObjectGraphState state, int account, long amount) {
        Account a = state.root("bank", Bank.class).accounts[account];
        state.modify(a);
        a.balance += amount;
    }

    private static long balance(ObjectGraphState state, int account) {
        return state.root("bank", Bank.class).accounts[account].balance;
    }

    /** Runs {@code body} on an executor thread as a request of batch {@code seq}, and waits for it. */
    private void inBatch(long seq, Runnable body) throws Exception {
        threads.submit(() -> ObjectGraphState.runAsBatch(seq, body)).get();
    }

    @Test
    void shouldSealEachBatchWithOnlyItsOwnWrites() throws Exception {
        ObjectGraphState reference = newBank(8);
        deposit(reference, 1, 10);
        Digest one = reference.seal(1);
        deposit(reference, 2, 20);
        reference.root("directory", Directory.class).entries.put("k", "v2");
        Digest two = reference.seal(2);

        ObjectGraphState state = newBank(8);
        inBatch(1, () -> deposit(state, 1, 10));
        state.openNext(2);
        inBatch(2, () -> {
            deposit(state, 2, 20);
            state.root("directory", Directory.class).entries.put("k", "v2");
        });
        assertThat(state.seal(1)).isEqualTo(one);
        assertThat(state.takeCrossBatchConflict()).isFalse();
        assertThat(state.seal(2)).isEqualTo(two);
        assertThat(balance(state, 1)).isEqualTo(110);
        assertThat(balance(state, 2)).isEqualTo(120);
    }

    @Test
    void shouldShipWritesOfTheNextBatchInTheDeltaOfItsOwnVersion() throws Exception {
        ObjectGraphState state = newBank(4);
        state.root("directory", Directory.class).entries.put("early", "1");
        state.seal(1);
        ObjectGraphState follower = newBank(4);
        follower.apply(state.deltaSince(0), 1, state.rootAt(1));

        inBatch(2, () -> deposit(state, 0, 1));
        state.openNext(3);
        inBatch(3, () -> state.root("directory", Directory.class).entries.put("late", "3"));
        state.seal(2);
        Digest three = state.seal(3);

        StateDelta sinceOne = state.deltaSince(1);
        assertThat(follower.apply(sinceOne, 3, three).applied()).isTrue();
        assertThat(follower.root("directory", Directory.class).entries.get("late"))
                .isEqualTo("3");
    }

    @Test
    void shouldReportAndUndoANextBatchWriteToAnObjectOfTheBatchInProgress() throws Exception {
        ObjectGraphState state = newBank(4);
        inBatch(1, () -> deposit(state, 1, 10));
        state.openNext(2);
        inBatch(2, () -> deposit(state, 1, 5));
        inBatch(2, () -> deposit(state, 3, 7));
        state.seal(1);
        assertThat(state.takeCrossBatchConflict()).isTrue();
        assertThat(state.takeCrossBatchConflict()).isFalse();
        state.rollbackTo(0);
        assertThat(balance(state, 1)).isEqualTo(100);
        assertThat(balance(state, 3)).isEqualTo(100);
        // Run again one after the other: the same versions as if nothing had overlapped.
        ObjectGraphState reference = newBank(4);
        deposit(reference, 1, 10);
        deposit(state, 1, 10);
        assertThat(state.seal(1)).isEqualTo(reference.seal(1));
        deposit(reference, 1, 5);
        deposit(state, 1, 5);
        assertThat(state.seal(2)).isEqualTo(reference.seal(2));
    }

    @Test
    void shouldReportABatchInProgressWritingAnObjectTheNextBatchCapturedFirst() throws Exception {
        ObjectGraphState state = newBank(4);
        state.openNext(2);
        inBatch(2, () -> deposit(state, 2, 5));
        inBatch(1, () -> deposit(state, 2, 10));
        state.seal(1);
        assertThat(state.takeCrossBatchConflict()).isTrue();
        state.rollbackTo(0);
        assertThat(balance(state, 2)).isEqualTo(100);
    }

    @Test
    void shouldUndoTheNextBatchWhenDiscardedAndCaptureAgainWhenRerun() throws Exception {
        ObjectGraphState reference = newBank(4);
        deposit(reference, 1, 10);
        Digest one = reference.seal(1);
        deposit(reference, 2, 20);
        Digest two = reference.seal(2);

        ObjectGraphState state = newBank(4);
        inBatch(1, () -> deposit(state, 1, 10));
        state.openNext(2);
        inBatch(2, () -> deposit(state, 2, 20));
        state.discardNext();
        assertThat(balance(state, 2)).isEqualTo(100);
        assertThat(state.seal(1)).isEqualTo(one);
        deposit(state, 2, 20);
        assertThat(state.seal(2)).isEqualTo(two);
        state.rollbackTo(1);
        assertThat(balance(state, 2)).isEqualTo(100);
    }

    @Test
    void shouldKeepTheNextBatchsPreImageWhenItsRequestOutlivesTheSeal() throws Exception {
        ObjectGraphState state = newBank(4);
        inBatch(1, () -> deposit(state, 1, 10));
        state.openNext(2);
        CountDownLatch sealed = new CountDownLatch(1);
        Future<?> late = threads.submit(() -> ObjectGraphState.runAsBatch(2, () -> {
            deposit(state, 3, 1);
            try {
                sealed.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // Batch 1 is sealed by now: its objects are ordinary history for batch 2.
            deposit(state, 1, 5);
        }));
        state.seal(1);
        sealed.countDown();
        late.get();
        assertThat(state.takeCrossBatchConflict()).isFalse();
        state.seal(2);
        assertThat(balance(state, 1)).isEqualTo(115);
        state.rollbackTo(1);
        assertThat(balance(state, 1)).isEqualTo(110);
        assertThat(balance(state, 3)).isEqualTo(100);
        state.rollbackTo(0);
        assertThat(balance(state, 1)).isEqualTo(100);
    }

    @Test
    void shouldRefuseWhatCannotOverlap() throws Exception {
        ObjectGraphState state = newBank(2);
        assertThatThrownBy(() -> state.openNext(3))
                .isInstanceOf(StateException.class)
                .hasMessageContaining("3");
        state.openNext(2);
        assertThatThrownBy(() -> state.openNext(2)).isInstanceOf(StateException.class);
        assertThatThrownBy(() -> state.rollbackTo(0))
                .isInstanceOf(StateException.class)
                .hasMessageContaining("open next");
        assertThatThrownBy(() -> state.deltaSince(0)).isInstanceOf(StateException.class);
        assertThatThrownBy(() -> inBatch(3, () -> deposit(state, 0, 1)))
                .hasRootCauseInstanceOf(StateException.class)
                .hasStackTraceContaining("batch 3");
        state.discardNext();

        ObjectGraphState collecting = ObjectGraphState.builder()
                .manualTracking(true)
                .gcInterval(2)
                .register(Account.class, Bank.class)
                .build();
        collecting.setRoot("bank", new Bank(1));
        collecting.seal(0);
        assertThat(collecting.canOverlap(1)).isTrue();
        assertThat(collecting.canOverlap(2)).isFalse();
        collecting.seal(1);
        assertThatThrownBy(() -> collecting.openNext(3)).isInstanceOf(StateException.class);

        ObjectGraphState debug = ObjectGraphState.builder()
                .manualTracking(true)
                .debug(true)
                .register(Bank.class)
                .build();
        assertThat(debug.canOverlap(1)).isFalse();
    }

    @Test
    void shouldFlagARootChangedByTheNextBatch() throws Exception {
        ObjectGraphState state = newBank(2);
        state.openNext(2);
        inBatch(2, () -> state.setRoot("extra", new Bank(1)));
        assertThat(state.takeCrossBatchConflict()).isTrue();
    }
}
