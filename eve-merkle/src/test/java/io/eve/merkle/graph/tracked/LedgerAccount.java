package io.eve.merkle.graph.tracked;

import io.eve.merkle.graph.Replicated;

/**
 * A tracked (enhanced) account; every way Java can write a field is one of its methods or of the classes
 * beside it. {@code io.eve.merkle.graph.manual.MirrorAccount} is its unenhanced twin (same stable name,
 * same fields), written with explicit modify calls.
 */
@Replicated(name = "prop.Account")
public final class LedgerAccount extends AbstractLedgerAccount {
    String memo;
    int ops;
    LedgerAccount peer;

    LedgerAccount() {}

    /** A new account, written in its constructor. */
    public LedgerAccount(long balance) {
        this.balance = balance;
        this.memo = "opened";
    }

    /** Own method writing the inherited field and its own. */
    public void deposit(long amount) {
        balance += amount;
        ops++;
    }

    /** A lambda in the class writes the field (javac compiles it to a private synthetic method). */
    public Runnable depositLater(long amount) {
        return () -> {
            balance += amount;
            memo = "lambda " + amount;
        };
    }

    /** An inner class writes the outer object's fields. */
    public Teller teller() {
        return new Teller();
    }

    /** Links a peer (possibly a new object). */
    public void link(LedgerAccount other) {
        peer = other;
    }

    /** The peer. */
    public LedgerAccount peer() {
        return peer;
    }

    /** An inner class: its methods write {@link LedgerAccount}'s fields. */
    public final class Teller {
        /** Pays into the outer account. */
        public void pay(long amount) {
            balance += amount;
            ops += 2;
        }
    }
}
