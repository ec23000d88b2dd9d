package io.eve.merkle.graph.manual;

import io.eve.merkle.graph.Replicated;

/**
 * The unenhanced twin of {@code tracked.LedgerAccount}: the same stable name and fields, so equal
 * contents hash alike; written directly, after explicit modify calls.
 */
@Replicated(name = "prop.Account")
public final class MirrorAccount extends MirrorBase {
    String memo;

    int ops;

    MirrorAccount peer;

    MirrorAccount() {}

    /** A new account. */
    public MirrorAccount(long balance) {
        this.balance = balance;
        this.memo = "opened";
    }
}
