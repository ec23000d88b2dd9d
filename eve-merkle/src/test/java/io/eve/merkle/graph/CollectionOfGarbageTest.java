package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import org.junit.jupiter.api.Test;

class CollectionOfGarbageTest {

    private static ObjectGraphState newState(int gcInterval) {
        return ObjectGraphState.builder()
                .manualTracking(true)
                .debug(true)
                .gcInterval(gcInterval)
                .register(Account.class, Bank.class)
                .build();
    }

    @Test
    void shouldFreeUnreachableObjectsAndReuseTheirIdsLowestFirst() {
        ObjectGraphState state = newState(2);
        Bank bank = new Bank(4);
        for (int i = 0; i < 4; i++) {
            bank.accounts[i] = new Account("a" + i, i);
        }
        state.setRoot("bank", bank);
        state.seal(0);
        Account dropped1 = bank.accounts[1];
        Account dropped3 = bank.accounts[3];
        long id1 = state.idOf(dropped1);
        long id3 = state.idOf(dropped3);
        state.modify(bank);
        bank.accounts[1] = null;
        bank.accounts[3] = null;
        state.seal(1);
        assertThat(state.idOf(dropped1)).as("not collected before the interval").isEqualTo(id1);
        state.seal(2);
        assertThat(state.idOf(dropped1)).isZero();
        assertThat(state.objectAt(id1)).isNull();
        state.modify(bank);
        bank.accounts[3] = new Account("late", 9);
        bank.accounts[1] = new Account("later", 9);
        state.seal(3);
        assertThat(state.idOf(bank.accounts[1])).isEqualTo(id1);
        assertThat(state.idOf(bank.accounts[3])).isEqualTo(id3);
    }

    @Test
    void shouldRestoreCollectedObjectsOnRollback() {
        ObjectGraphState state = newState(1);
        Bank bank = new Bank(2);
        bank.accounts[0] = new Account("kept", 1);
        bank.accounts[1] = new Account("dropped", 2);
        state.setRoot("bank", bank);
        Digest zero = state.seal(0);
        Account dropped = bank.accounts[1];
        long id = state.idOf(dropped);
        state.modify(bank);
        bank.accounts[1] = null;
        state.seal(1);
        assertThat(state.idOf(dropped)).isZero();
        state.rollbackTo(0);
        assertThat(bank.accounts[1]).isSameAs(dropped);
        assertThat(state.idOf(dropped)).isEqualTo(id);
        assertThat(state.objectAt(id)).isSameAs(dropped);
        state.modify(dropped);
        dropped.balance++;
        assertThat(state.seal(1)).isNotEqualTo(zero);
    }

    @Test
    void shouldCollectCyclesUnreachableFromRoots() {
        ObjectGraphState state = newState(1);
        Bank bank = new Bank(1);
        Account a = new Account("a", 1);
        Account b = new Account("b", 2);
        a.next = b;
        b.next = a;
        bank.accounts[0] = a;
        state.setRoot("bank", bank);
        state.seal(0);
        state.modify(bank);
        bank.accounts[0] = null;
        state.seal(1);
        assertThat(state.idOf(a)).isZero();
        assertThat(state.idOf(b)).isZero();
    }

    @Test
    void shouldGiveEqualRootsWhetherGarbageWasCollectedOrNeverExisted() {
        ObjectGraphState withGarbage = newState(1);
        Bank bank = new Bank(1);
        withGarbage.setRoot("bank", bank);
        withGarbage.seal(0);
        withGarbage.modify(bank);
        bank.accounts[0] = new Account("temp", 0);
        withGarbage.seal(1);
        withGarbage.modify(bank);
        bank.accounts[0] = null;
        Digest collected = withGarbage.seal(2);

        ObjectGraphState clean = newState(1);
        Bank other = new Bank(1);
        clean.setRoot("bank", other);
        clean.seal(0);
        clean.seal(1);
        Digest never = clean.seal(2);
        assertThat(collected)
                .as("the free list is state: id 2 is free in one, never used in the other")
                .isNotEqualTo(never);
    }
}
