package io.eve.merkle.graph.tracked;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.merkle.graph.StateObject;

/** The root: accounts by number in a replicated map. */
@Replicated(name = "prop.Ledger")
public final class Ledger extends StateObject {
    ReplicatedMap<Long, LedgerAccount> accounts;
    long transfers;

    Ledger() {}

    /** A ledger of {@code count} accounts holding {@code balance} each. */
    public static Ledger of(int count, long balance) {
        Ledger ledger = new Ledger();
        ledger.accounts = new ReplicatedMap<>();
        for (long i = 0; i < count; i++) {
            ledger.accounts.put(i, new LedgerAccount(balance));
        }
        return ledger;
    }

    /** Account {@code number}. */
    public LedgerAccount account(long number) {
        return accounts.get(number);
    }

    /** Counts a transfer (the root object is written too). */
    public void countTransfer() {
        transfers++;
    }
}
