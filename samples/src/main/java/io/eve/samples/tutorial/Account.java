package io.eve.samples.tutorial;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/**
 * One account: replicated state; the eve-enhance build step makes every write to {@code balance} save the
 * account's pre-image first, so the code needs no {@code modify} calls (the tutorial's step 1). Written only by the request that declared its account as written.
 */
@Replicated(name = "tutorial.Account")
public final class Account extends StateObject {
    long balance;

    private Account() {}

    Account(long balance) {
        this.balance = balance;
    }
}
