package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import io.eve.merkle.graph.tracked.Clerk;
import io.eve.merkle.graph.tracked.Ledger;
import io.eve.merkle.graph.tracked.LedgerAccount;
import org.junit.jupiter.api.Test;

/** The write barrier outside the property test's request scopes: setup code, and explicit modify beside it. */
class TrackingTest {

    private static ObjectGraphState ledger() {
        ObjectGraphState state = ObjectGraphState.builder()
                .debug(true)
                .register(Ledger.class, LedgerAccount.class)
                .build();
        state.setRoot("ledger", Ledger.of(3, 100));
        state.seal(0);
        return state;
    }

    @Test
    void shouldTrackWritesOutsideARequestAndRollThemBack() {
        ObjectGraphState state = ledger();
        LedgerAccount account = state.root("ledger", Ledger.class).account(1);
        Clerk.credit(account, 5); // no request open: the barrier marks the object for the batch in progress
        Digest one = state.seal(1);
        assertThat(one).isNotEqualTo(state.rootAt(0));
        state.rollbackTo(0);
        assertThat(account.balance()).isEqualTo(100);
        assertThat(state.seal(1)).isEqualTo(state.rootAt(0));
    }

    @Test
    void shouldAcceptExplicitModifyOnTrackedObjects() {
        ObjectGraphState tracked = ledger();
        ObjectGraphState explicit = ledger();
        LedgerAccount a = tracked.root("ledger", Ledger.class).account(2);
        LedgerAccount b = explicit.root("ledger", Ledger.class).account(2);
        explicit.modify(b); // idempotent with the barrier that follows
        b.deposit(9);
        explicit.modify(b);
        a.deposit(9);
        assertThat(explicit.seal(1)).isEqualTo(tracked.seal(1));
    }

    @Test
    void shouldNotMarkAnObjectTheRequestCreated() {
        ObjectGraphState state = ledger();
        state.beginRequest();
        LedgerAccount created = new LedgerAccount(1); // stamped with the open request by its constructor
        created.deposit(1);
        assertThat(state.hasUnsealedWrites()).isFalse();
        state.abortRequest();
        assertThat(created.balance()).isEqualTo(2); // nothing references it: the request's undo need not copy it
    }
}
