package io.eve.merkle.graph;

/** A test root: a fixed table of account slots. */
@Replicated(name = "test.Bank")
final class Bank extends StateObject {
    Account[] accounts;
    long totalDeposits;
    final long[] counters = new long[4];

    Bank() {}

    Bank(int size) {
        accounts = new Account[size];
    }
}
