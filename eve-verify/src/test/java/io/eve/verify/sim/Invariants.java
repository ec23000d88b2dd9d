package io.eve.verify.sim;

import io.eve.Reply;
import io.eve.execution.Executed;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The safety properties, checked as the run goes; a violation fails the run at once.
 *
 * <p>What "committed" means here, per replica incarnation (a restart begins a new incarnation with a new
 * history): version {@code s} is committed at an incarnation when its stage marks {@code s} stable, in
 * stage order. Its committed token is the token the stage holds for {@code s} at that moment: the one it
 * computed by executing batch {@code s}, or, for the version a state transfer installed, the token the
 * sender shipped with the state. Versions skipped by a transfer (between its base and its target) have
 * no committed token at that incarnation and are not compared. Every committed token and state root of
 * a version must be the same across all incarnations of both replicas.
 */
final class Invariants {
    private final Simulation sim;
    private final Map<Long, Committed> committed = new HashMap<>();

    /** The first commit of a version: which incarnation, with what token (maybe none) and state root. */
    private record Committed(String where, Token token, Digest root) {}

    Invariants(Simulation sim) {
        this.sim = sim;
    }

    /** Invariants 2 and 3: the same token and the same state for a version, wherever it is committed. */
    void onStable(SimReplica replica, long seq, Token token, Digest root) {
        if (token != null && !token.stateRoot().equals(root)) {
            sim.fail(replica.name() + " commits version " + seq + " with state root " + root + ", but its token says "
                    + token.stateRoot());
        }
        Committed first = committed.get(seq);
        if (first == null) {
            committed.put(seq, new Committed(replica.name(), token, root));
            return;
        }
        if (token != null && first.token() != null && !token.matches(first.token())) {
            sim.fail("committed tokens of version " + seq + " differ: " + first.where() + " committed " + first.token()
                    + ", " + replica.name() + " commits " + token);
        }
        if (!root.equals(first.root())) {
            sim.fail("committed states of version " + seq + " differ: " + first.where() + " has root " + first.root()
                    + ", " + replica.name() + " has " + root);
        }
    }

    /**
     * Invariant 1: a reply leaves a replica only if that replica's protocol declared committed a batch,
     * executed by this incarnation, that produced exactly this reply.
     */
    void onRelease(SimReplica replica, Reply reply) {
        Executed executed = replica.executionAnswering(reply, replica.protocolStable());
        if (executed == null) {
            sim.fail(replica.name() + " releases " + reply + " but no batch up to its committed "
                    + replica.protocolStable() + " produced it");
            return;
        }
        boolean same = executed.replies().stream()
                .anyMatch(r -> r.requestSeq() == reply.requestSeq()
                        && r.clientId() == reply.clientId()
                        && r.error() == reply.error()
                        && Arrays.equals(r.payload(), reply.payload()));
        if (!same) {
            sim.fail(replica.name() + " releases " + reply + " which differs from what committed batch "
                    + executed.seq() + " produced");
        }
    }
}
