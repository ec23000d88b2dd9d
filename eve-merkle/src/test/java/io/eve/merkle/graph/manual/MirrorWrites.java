package io.eve.merkle.graph.manual;

import io.eve.merkle.graph.ObjectGraphState;

/** The explicit-modify reference: every write here follows a modify call, and nothing is enhanced. */
public final class MirrorWrites {
    private MirrorWrites() {}

    /** Adds to the balance and the operation count, and sets the memo unless {@code null}. */
    public static void write(ObjectGraphState state, MirrorAccount account, long balance, int ops, String memo) {
        state.modify(account);
        account.balance += balance;
        account.ops += ops;
        if (memo != null) {
            account.memo = memo;
        }
    }

    /** Links a new peer account holding {@code balance}. */
    public static void link(ObjectGraphState state, MirrorAccount account, long balance) {
        state.modify(account);
        account.peer = new MirrorAccount(balance);
    }

    /** Counts a transfer on the root. */
    public static void countTransfer(ObjectGraphState state, MirrorLedger ledger) {
        state.modify(ledger);
        ledger.transfers++;
    }

    /** The peer of {@code account}, or {@code null}. */
    public static MirrorAccount peer(MirrorAccount account) {
        return account.peer;
    }

    /** The balance. */
    public static long balance(MirrorAccount account) {
        return account.balance;
    }
}
