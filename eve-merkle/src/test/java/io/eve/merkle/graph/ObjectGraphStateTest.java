package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.StateException;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.manual.ManualAccount;
import org.junit.jupiter.api.Test;

class ObjectGraphStateTest {

    static ObjectGraphState newState() {
        return ObjectGraphState.builder()
                .manualTracking(true)
                .debug(true)
                .register(Account.class, Bank.class)
                .build();
    }

    /** Version 0: a bank with {@code n} accounts, sealed. */
    static ObjectGraphState newBank(int n) {
        ObjectGraphState state = newState();
        Bank bank = new Bank(n);
        for (int i = 0; i < n; i++) {
            bank.accounts[i] = new Account("owner" + i, 100);
        }
        state.setRoot("bank", bank);
        state.seal(0);
        return state;
    }

    static Bank bank(ObjectGraphState state) {
        return state.root("bank", Bank.class);
    }

    static void deposit(ObjectGraphState state, int account, long amount) {
        Account a = bank(state).accounts[account];
        state.modify(a);
        a.balance += amount;
    }

    @Test
    void shouldGiveEqualRootsForEqualHistories() {
        ObjectGraphState a = newBank(10);
        ObjectGraphState b = newBank(10);
        assertThat(a.rootAt(0)).isEqualTo(b.rootAt(0));
        deposit(a, 3, 5);
        deposit(b, 3, 5);
        assertThat(a.seal(1)).isEqualTo(b.seal(1));
    }

    @Test
    void shouldChangeRootWhenStateChanges() {
        ObjectGraphState state = newBank(10);
        Digest before = state.rootAt(0);
        deposit(state, 3, 5);
        assertThat(state.seal(1)).isNotEqualTo(before);
    }

    @Test
    void shouldRollBackAcrossPipelinedVersions() {
        ObjectGraphState state = newBank(10);
        deposit(state, 1, 10);
        Digest one = state.seal(1);
        deposit(state, 1, 20);
        state.modify(bank(state));
        bank(state).accounts[2] = null;
        state.seal(2);
        deposit(state, 1, 30);
        state.rollbackTo(1);
        assertThat(bank(state).accounts[1].balance).isEqualTo(110);
        assertThat(bank(state).accounts[2]).isNotNull();
        assertThat(state.sealedSeq()).isEqualTo(1);
        assertThat(state.rootAt(1)).isEqualTo(one);
        deposit(state, 1, 20);
        assertThat(state.seal(2)).isNotEqualTo(one);
        state.rollbackTo(0);
        assertThat(bank(state).accounts[1].balance).isEqualTo(100);
        assertThat(state.seal(1)).isEqualTo(newBank(10).seal(1));
    }

    @Test
    void shouldCatchForgottenModifyInDebugMode() {
        ObjectGraphState state =
                ObjectGraphState.builder().manualTracking(true).debug(true).build();
        ManualAccount account = new ManualAccount("ann", 100);
        state.setRoot("account", account);
        state.seal(0);
        account.depositUntracked(7);
        assertThatThrownBy(() -> state.seal(1))
                .isInstanceOf(StateException.class)
                .hasMessageContaining("test.ManualAccount")
                .hasMessageContaining("without modify()");
    }

    @Test
    void shouldTransferOnlyWhatChanged() {
        ObjectGraphState source = newBank(2000);
        ObjectGraphState copy = newBank(2000);
        for (long seq = 1; seq <= 3; seq++) {
            deposit(source, (int) seq * 7, seq);
            source.seal(seq);
        }
        StateDelta delta = source.deltaSince(0);
        ApplyResult result = copy.apply(delta, 3, source.rootAt(3));
        assertThat(result.applied()).as(result.reason()).isTrue();
        assertThat(copy.sealedSeq()).isEqualTo(3);
        assertThat(bank(copy).accounts[14].balance).isEqualTo(102);
        assertThat(delta.size()).isLessThan(1000);
    }

    @Test
    void shouldFullyTransferToAnEmptyReplica() {
        ObjectGraphState source = newBank(50);
        deposit(source, 3, 1);
        source.seal(1);
        ObjectGraphState empty = newState();
        ApplyResult result = empty.apply(source.deltaSince(VersionedState.NOTHING), 1, source.rootAt(1));
        assertThat(result.applied()).as(result.reason()).isTrue();
        assertThat(bank(empty).accounts[3].balance).isEqualTo(101);
        assertThat(bank(empty).accounts[3].owner).isEqualTo("owner3");
    }

    @Test
    void shouldLeaveStateUntouchedWhenDeltaDisagreesWithExpectedRoot() {
        ObjectGraphState source = newBank(10);
        deposit(source, 3, 1);
        source.seal(1);
        ObjectGraphState copy = newBank(10);
        Digest before = copy.rootAt(0);
        ApplyResult result = copy.apply(source.deltaSince(0), 1, Digest.ZERO);
        assertThat(result.applied()).isFalse();
        assertThat(result.reason()).contains("expected");
        assertThat(copy.sealedSeq()).isZero();
        assertThat(bank(copy).accounts[3].balance).isEqualTo(100);
        deposit(copy, 3, 1);
        assertThat(copy.seal(1)).isEqualTo(source.rootAt(1)).isNotEqualTo(before);
    }

    @Test
    void shouldForgetPreImagesAndVersionsBelowTheStableOne() {
        ObjectGraphState state = newBank(10);
        for (long seq = 1; seq <= 3; seq++) {
            deposit(state, (int) seq, 1);
            deposit(state, (int) seq + 4, 1);
            state.seal(seq);
        }
        assertThat(state.keptPreImages()).isEqualTo(6);
        state.markStable(2);
        assertThat(state.keptPreImages()).as("only batch 3 can still be undone").isEqualTo(2);
        assertThatThrownBy(() -> state.rollbackTo(1)).isInstanceOf(StateException.class);
        assertThatThrownBy(() -> state.rootAt(1)).hasMessageContaining("not kept");
        state.rollbackTo(2);
        assertThat(bank(state).accounts[3].balance).isEqualTo(100);
        assertThat(bank(state).accounts[2].balance).isEqualTo(101);
        state.markStable(2);
        assertThat(state.keptPreImages()).isZero();
    }
}
