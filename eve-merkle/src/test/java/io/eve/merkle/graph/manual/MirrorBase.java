package io.eve.merkle.graph.manual;

import io.eve.merkle.graph.StateObject;

/** The twin of {@code tracked.AbstractLedgerAccount}. */
public abstract class MirrorBase extends StateObject {
    long balance;
}
