package io.eve;

import io.eve.merkle.Digest;

/**
 * What a {@link Replica} reports about itself (also served as JSON on {@code /status}).
 *
 * @param node the node id
 * @param role what the node does now
 * @param roles the roles the profile gives the node, for people: "primary", "backup", "execution primary +
 *     verifier", "verifier", ...
 * @param view the current view (primary-backup and quorum views both count from 0)
 * @param committedSeq the last batch the protocol committed at this node (-1 in a verifier-only process)
 * @param stableSeq the last batch the execution stage marked stable (-1 without an execution replica)
 * @param stableRoot the state root at {@code stableSeq}, or null without an execution replica
 * @param verifiedSeq the last batch this node's verifier committed, or -1 without one
 * @param rollbacks rollbacks ordered since start
 * @param transfers state transfers installed since start
 * @param transferBytes bytes of state received by transfer since start
 * @param repliesReleased client replies released since start
 * @param viewChanges view changes this node's verifier started (quorum profiles), else 0
 */
public record ReplicaStatus(
        int node,
        Replica.Role role,
        String roles,
        long view,
        long committedSeq,
        long stableSeq,
        Digest stableRoot,
        long verifiedSeq,
        long rollbacks,
        long transfers,
        long transferBytes,
        long repliesReleased,
        long viewChanges) {

    /** Whether this node orders batches now. */
    public boolean primary() {
        return role == Replica.Role.PRIMARY;
    }

    /** The status as one JSON object (what {@code /status} serves); the root as hex, or "" without one. */
    public String toJson() {
        return String.format(
                "{\"node\": %d, \"role\": \"%s\", \"roles\": \"%s\", \"primary\": %b, \"view\": %d, \"committedSeq\": %d,"
                        + " \"stableSeq\": %d, \"stableRoot\": \"%s\", \"verifiedSeq\": %d, \"rollbacks\": %d,"
                        + " \"transfers\": %d, \"transferBytes\": %d, \"replies\": %d, \"viewChanges\": %d,"
                        + " \"joining\": %b}",
                node,
                role.name().toLowerCase(java.util.Locale.ROOT),
                roles,
                primary(),
                view,
                committedSeq,
                stableSeq,
                stableRoot == null ? "" : stableRoot.toHex(),
                verifiedSeq,
                rollbacks,
                transfers,
                transferBytes,
                repliesReleased,
                viewChanges,
                role == Replica.Role.JOINING);
    }
}
