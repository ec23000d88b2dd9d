package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.StateDelta;
import org.junit.jupiter.api.Test;

class DeltaSizeTest {

    private static ObjectGraphState bankOf(int accounts) {
        ObjectGraphState state = ObjectGraphState.builder()
                .manualTracking(true)
                .gcInterval(0)
                .register(Account.class, Bank.class)
                .build();
        Bank bank = new Bank(accounts);
        for (int i = 0; i < accounts; i++) {
            bank.accounts[i] = new Account("owner" + i, i);
            bank.accounts[i].memo = new byte[100];
        }
        state.setRoot("bank", bank);
        state.seal(0);
        return state;
    }

    private static int deltaSizeAfterChanging(ObjectGraphState state, int changed) {
        Bank bank = state.root("bank", Bank.class);
        int stride = bank.accounts.length / changed;
        for (int i = 0; i < changed; i++) {
            Account account = bank.accounts[i * stride];
            state.modify(account);
            account.balance++;
        }
        state.seal(1);
        return state.deltaSince(0).size();
    }

    @Test
    void shouldGrowWithWhatChangedNotWithTheState() {
        int small = deltaSizeAfterChanging(bankOf(1_000), 10);
        int large = deltaSizeAfterChanging(bankOf(50_000), 10);
        int moreChanges = deltaSizeAfterChanging(bankOf(50_000), 100);
        int perObject = 100 + 200;
        assertThat(large).as("same change, 50x the state").isLessThan(small + 64);
        assertThat(large).isLessThan(10 * perObject + 256);
        assertThat(moreChanges).isBetween(8 * (large - 256), 10 * large);
    }

    @Test
    void shouldShipOnlyTheChangedObjectAfterAnIncrementalTransfer() {
        ObjectGraphState source = bankOf(20_000);
        ObjectGraphState copy = bankOf(20_000);
        int size = deltaSizeAfterChanging(source, 1);
        StateDelta delta = source.deltaSince(0);
        ApplyResult result = copy.apply(delta, 1, source.rootAt(1));
        assertThat(result.applied()).as(result.reason()).isTrue();
        assertThat(size).isLessThan(600);
        assertThat(copy.deltaSince(0).size()).isEqualTo(size);
    }
}
