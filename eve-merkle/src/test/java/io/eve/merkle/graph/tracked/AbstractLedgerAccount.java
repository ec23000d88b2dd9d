package io.eve.merkle.graph.tracked;

import io.eve.merkle.graph.StateObject;

/** A superclass below StateObject that declares state: its own method writes the inherited field. */
public abstract class AbstractLedgerAccount extends StateObject {
    long balance;

    /** Written by a superclass method. */
    public void adjust(long amount) {
        balance += amount;
    }

    /** The balance. */
    public long balance() {
        return balance;
    }
}
