package io.eve.merkle.graph.manual;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/**
 * A state class the build step leaves as compiled (eve-merkle's pom skips this package): its own
 * methods write without tracking, as an application without the build step would.
 */
@Replicated(name = "test.ManualAccount")
public final class ManualAccount extends StateObject {
    long balance;
    String owner;

    ManualAccount() {}

    /** An account of {@code owner} holding {@code balance}. */
    public ManualAccount(String owner, long balance) {
        this.owner = owner;
        this.balance = balance;
    }

    /** Adds {@code amount} without any modify call: what a forgotten call looks like. */
    public void depositUntracked(long amount) {
        balance += amount;
    }

    /** The balance. */
    public long balance() {
        return balance;
    }
}
