package io.eve.verify.sim;

import io.eve.protocol.Message;

/**
 * What the simulated network and clients need of a run, whichever protocol it simulates
 * ({@link Simulation} for primary-backup, {@link QuorumSimulation} for the crash and bft profiles).
 */
interface World {
    long now();

    EventQueue queue();

    SimNetwork network();

    void log(String line);

    void fail(String what);

    /** Whether {@code id} is a replica process (not a client). */
    boolean isReplica(int id);

    void deliver(int from, int to, Message message);

    long failureTimeoutNanos();

    long clientTimeoutNanos();

    void onCorruptedToken();
}
