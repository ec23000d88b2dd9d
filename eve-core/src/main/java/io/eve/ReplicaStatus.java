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
 * @param divergedObjects objects this node named as different in batches whose tokens still differed after
 *     sequential re-execution, since start (docs/state.md, "Diagnosing a batch that still differs")
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
        long viewChanges,
        long divergedObjects) {

    private static final java.util.regex.Pattern FIELD =
            java.util.regex.Pattern.compile("\"(\\w+)\": (?:\"([^\"]*)\"|([^,}\\s]+))");

    /**
     * Reads what {@link #toJson()} wrote (a replica's {@code /status}, say).
     *
     * @throws IllegalArgumentException naming the field that is missing or unreadable
     */
    public static ReplicaStatus fromJson(String json) {
        java.util.Map<String, String> fields = new java.util.HashMap<>();
        java.util.regex.Matcher matcher = FIELD.matcher(json);
        while (matcher.find()) {
            fields.put(matcher.group(1), matcher.group(2) != null ? matcher.group(2) : matcher.group(3));
        }
        String root = field(fields, "stableRoot");
        try {
            return new ReplicaStatus(
                    (int) number(fields, "node"),
                    Replica.Role.valueOf(field(fields, "role").toUpperCase(java.util.Locale.ROOT)),
                    field(fields, "roles"),
                    number(fields, "view"),
                    number(fields, "committedSeq"),
                    number(fields, "stableSeq"),
                    root.isEmpty() ? null : Digest.fromHex(root),
                    number(fields, "verifiedSeq"),
                    number(fields, "rollbacks"),
                    number(fields, "transfers"),
                    number(fields, "transferBytes"),
                    number(fields, "replies"),
                    number(fields, "viewChanges"),
                    number(fields, "divergedObjects"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a replica status is not readable (" + e.getMessage() + "): " + json, e);
        }
    }

    private static String field(java.util.Map<String, String> fields, String name) {
        String value = fields.get(name);
        if (value == null) {
            throw new IllegalArgumentException("a replica status lacks '" + name + "': " + fields);
        }
        return value;
    }

    private static long number(java.util.Map<String, String> fields, String name) {
        String value = field(fields, name);
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + name + "' = '" + value + "' is not a whole number", e);
        }
    }

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
                        + " \"divergedObjects\": %d, \"joining\": %b}",
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
                divergedObjects,
                role == Replica.Role.JOINING);
    }
}
