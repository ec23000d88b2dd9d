package io.eve.merkle.graph;

/** A test state class covering primitives, strings, arrays, enums and references. */
@Replicated(name = "test.Account")
final class Account extends StateObject {
    enum Kind {
        CHECKING,
        SAVINGS
    }

    long balance;
    int version;
    double rate;
    boolean frozen;
    String owner;
    byte[] memo;
    Kind kind;
    Account next;
    transient Object cache;

    @Exclude
    int hits;

    Account() {}

    Account(String owner, long balance) {
        this.owner = owner;
        this.balance = balance;
        this.kind = Kind.CHECKING;
    }
}
