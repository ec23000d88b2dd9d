package io.eve.merkle.graph.manual;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.merkle.graph.StateObject;

/** The unenhanced twin of {@code tracked.Ledger}. */
@Replicated(name = "prop.Ledger")
public final class MirrorLedger extends StateObject {
    /** The accounts by number. */
    public ReplicatedMap<Long, MirrorAccount> accounts;

    long transfers;

    MirrorLedger() {}

    /** A ledger of {@code count} accounts holding {@code balance} each. */
    public static MirrorLedger of(int count, long balance) {
        MirrorLedger ledger = new MirrorLedger();
        ledger.accounts = new ReplicatedMap<>();
        for (long i = 0; i < count; i++) {
            ledger.accounts.put(i, new MirrorAccount(balance));
        }
        return ledger;
    }

    /** Account {@code number}. */
    public MirrorAccount account(long number) {
        return accounts.get(number);
    }
}
