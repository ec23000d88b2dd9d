package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.Digest;
import io.eve.merkle.ObjectDigest;
import io.eve.merkle.StateException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/state.md, "Diagnosing a batch that still differs": what {@code objectDigests(seq)} lists. */
class ObjectDigestsTest {

    private static ObjectGraphState newState(int gcInterval) {
        return ObjectGraphState.builder()
                .manualTracking(true)
                .gcInterval(gcInterval)
                .register(Account.class, Bank.class)
                .build();
    }

    /** Version 0: a bank of three accounts, ids 1 (bank) and 2 to 4 (accounts). */
    private static Bank bankOfThree(ObjectGraphState state) {
        Bank bank = new Bank(3);
        for (int i = 0; i < 3; i++) {
            bank.accounts[i] = new Account("owner" + i, 100);
        }
        state.setRoot("bank", bank);
        state.seal(0);
        return bank;
    }

    private static List<ObjectDigest> digests(ObjectGraphState state, long seq) {
        return state.objectDigests(seq).orElseThrow();
    }

    private static List<Long> ids(List<ObjectDigest> entries) {
        return entries.stream().map(ObjectDigest::id).toList();
    }

    @Test
    void shouldListAWrittenObjectWithItsNamesAndLeafDigest() {
        ObjectGraphState state = newState(0);
        Bank bank = bankOfThree(state);
        Account written = bank.accounts[1];
        state.modify(written);
        written.balance = 150;
        state.seal(1);

        List<ObjectDigest> entries = digests(state, 1);

        long id = state.idOf(written);
        assertThat(entries)
                .containsExactly(new ObjectDigest(
                        id,
                        "test.Account",
                        Account.class.getName(),
                        state.tree().slotDigest(id)));
        assertThat(entries.get(0).digest()).isNotEqualTo(Digest.ZERO);
    }

    @Test
    void shouldLeaveOutObjectsNotWrittenAndObjectsWrittenWithTheirOldValue() {
        ObjectGraphState state = newState(0);
        Bank bank = bankOfThree(state);
        state.modify(bank.accounts[0]);
        bank.accounts[0].balance = 100; // the value it had
        state.modify(bank.accounts[2]);
        bank.accounts[2].balance = 7;
        state.seal(1);

        assertThat(ids(digests(state, 1))).containsExactly(state.idOf(bank.accounts[2]));
    }

    @Test
    void shouldListPlacedObjectsAndTheTableTheirIdsChanged() {
        ObjectGraphState state = newState(0);
        Bank bank = bankOfThree(state);
        state.modify(bank);
        Account added = new Account("new", 1);
        bank.accounts[0].next = null;
        bank.totalDeposits = 1;
        bank.accounts[2] = added;
        state.seal(1);

        List<ObjectDigest> entries = digests(state, 1);

        long bankId = state.idOf(bank);
        long addedId = state.idOf(added);
        assertThat(ids(entries)).containsExactly(ObjectDigest.TABLE_ID, bankId, addedId);
        assertThat(entries.get(0).describe()).contains("roots table");
        assertThat(entries.get(0).digest()).isEqualTo(state.tree().slotDigest(0));
        assertThat(entries.get(2).className()).isEqualTo(Account.class.getName());
        assertThat(entries.get(2).stableName()).isEqualTo("test.Account");
    }

    @Test
    void shouldListFreedObjectsWithTheZeroDigestAndTheirClass() {
        ObjectGraphState state = newState(1);
        Bank bank = bankOfThree(state);
        Account dropped = bank.accounts[1];
        long droppedId = state.idOf(dropped);
        state.modify(bank);
        bank.accounts[1] = null;
        state.seal(1);

        List<ObjectDigest> entries = digests(state, 1);

        assertThat(ids(entries)).containsExactly(ObjectDigest.TABLE_ID, state.idOf(bank), droppedId);
        ObjectDigest freed = entries.get(2);
        assertThat(freed.freed()).isTrue();
        assertThat(freed.digest()).isEqualTo(Digest.ZERO);
        assertThat(freed.className()).isEqualTo(Account.class.getName());
        assertThat(freed.describe()).contains("object " + droppedId, "test.Account", "freed");
    }

    @Test
    void shouldListTheTableWhenOnlyARootChanged() {
        ObjectGraphState state = newState(0);
        Bank bank = bankOfThree(state);
        state.setRoot("alias", bank);
        state.seal(1);

        assertThat(ids(digests(state, 1))).containsExactly(ObjectDigest.TABLE_ID);
    }

    @Test
    void shouldReadEachPipelinedVersionFromItsOwnTree() {
        ObjectGraphState state = newState(0);
        Bank bank = bankOfThree(state);
        state.modify(bank.accounts[0]);
        bank.accounts[0].balance = 1;
        state.seal(1);
        state.modify(bank.accounts[1]);
        bank.accounts[1].balance = 2;
        state.modify(bank.accounts[0]);
        bank.accounts[0].balance = 3;
        state.seal(2);
        Digest firstAtOne = digests(state, 1).get(0).digest();

        assertThat(ids(digests(state, 1))).containsExactly(state.idOf(bank.accounts[0]));
        assertThat(ids(digests(state, 2))).containsExactly(state.idOf(bank.accounts[0]), state.idOf(bank.accounts[1]));
        assertThat(digests(state, 2).get(0).digest()).isNotEqualTo(firstAtOne);
    }

    @Test
    void shouldGiveEqualEntriesOnTwoReplicasThatWroteAlike() {
        ObjectGraphState a = newState(0);
        ObjectGraphState b = newState(0);
        Bank bankA = bankOfThree(a);
        Bank bankB = bankOfThree(b);
        a.modify(bankA.accounts[2]);
        bankA.accounts[2].balance = 5;
        b.modify(bankB.accounts[2]);
        bankB.accounts[2].balance = 6;
        a.seal(1);
        b.seal(1);

        ObjectDigest atA = digests(a, 1).get(0);
        ObjectDigest atB = digests(b, 1).get(0);
        assertThat(atA.id()).isEqualTo(atB.id());
        assertThat(atA.digest()).isNotEqualTo(atB.digest());
    }

    @Test
    void shouldRefuseStableAndUnsealedVersions() {
        ObjectGraphState state = newState(0);
        Bank bank = bankOfThree(state);
        state.modify(bank.accounts[0]);
        bank.accounts[0].balance = 1;
        state.seal(1);
        state.seal(2);
        state.markStable(1);

        assertThatThrownBy(() -> state.objectDigests(1)).isInstanceOf(StateException.class);
        assertThatThrownBy(() -> state.objectDigests(3)).isInstanceOf(StateException.class);
        assertThat(digests(state, 2)).isEmpty();
    }
}
