package io.eve.merkle.graph.tracked;

import java.util.function.Consumer;

/** Another class of the package, writing accounts' fields directly, from a method and from a lambda. */
public final class Clerk {
    private Clerk() {}

    /** Another class writes the fields. */
    public static void credit(LedgerAccount account, long amount) {
        account.balance += amount;
        account.memo = "credit " + amount;
    }

    /** A lambda of another class writes the fields. */
    public static Consumer<LedgerAccount> noter(String note) {
        return account -> {
            account.memo = note;
            account.ops++;
        };
    }
}
