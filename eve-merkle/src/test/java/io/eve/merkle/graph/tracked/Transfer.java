package io.eve.merkle.graph.tracked;

/** A constructor of another class writes two registered, placed accounts. */
public final class Transfer {
    final long amount;

    /** Moves {@code amount} from {@code from} to {@code to} while being constructed. */
    public Transfer(LedgerAccount from, LedgerAccount to, long amount) {
        this.amount = amount;
        from.balance -= amount;
        to.balance += amount;
        from.ops++;
        to.ops++;
    }
}
