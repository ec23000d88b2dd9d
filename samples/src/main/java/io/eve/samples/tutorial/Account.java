package io.eve.samples.tutorial;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/**
 * One account: replicated state, so every write goes through {@code state.modify(account)} first (the
 * tutorial's step 1). Written only by the request that declared its account as written.
 */
@Replicated(name = "tutorial.Account")
public final class Account extends StateObject {
    long balance;

    private Account() {}

    Account(long balance) {
        this.balance = balance;
    }
}
