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
 * @param lastViewChange why this node last changed view, as its log line says it: in the quorum profiles why its
 *     verifier last started a view change ("extra protection: batch 812: the token of replica 2 differs from the
 *     quorum's, ..."; docs/operations.md, "Logs"), in primary-backup why the replica last moved to another view
 *     ("primary silent for 1000 ms; taking over in view 1"); "" if it did not since start
 * @param countsInViewChanges false while this node's verifier restarted without its state and does not count
 *     towards a view change yet: it holds no certificate covering what its earlier lives voted (docs/quorum.md,
 *     "Rejoining", rule R). Restarting another process before it turns true can leave a view change one
 *     process short (docs/operations.md, "Restarting a quorum process"). True without a verifier.
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
        long divergedObjects,
        String lastViewChange,
        boolean countsInViewChanges) {

    /** Checks the fields. */
    public ReplicaStatus {
        java.util.Objects.requireNonNull(lastViewChange, "lastViewChange (\"\" for none)");
    }

    private static final java.util.regex.Pattern FIELD =
            java.util.regex.Pattern.compile("\"(\\w+)\": (?:\"((?:[^\"\\\\]++|\\\\.)*+)\"|([^,}\\s]+))");

    /**
     * Reads what {@link #toJson()} wrote (a replica's {@code /status}, say).
     *
     * @throws IllegalArgumentException naming the field that is missing or unreadable
     */
    public static ReplicaStatus fromJson(String json) {
        java.util.Map<String, String> fields = new java.util.HashMap<>();
        java.util.regex.Matcher matcher = FIELD.matcher(json);
        while (matcher.find()) {
            fields.put(matcher.group(1), matcher.group(2) != null ? unescape(matcher.group(2)) : matcher.group(3));
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
                    number(fields, "divergedObjects"),
                    // Absent in the status of a replica built before it existed.
                    fields.getOrDefault("lastViewChange", ""),
                    // Likewise.
                    !"false".equals(fields.get("countsInViewChanges")));
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
                        + " \"divergedObjects\": %d, \"joining\": %b, \"lastViewChange\": \"%s\","
                        + " \"countsInViewChanges\": %b}",
                node,
                role.name().toLowerCase(java.util.Locale.ROOT),
                escape(roles),
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
                role == Replica.Role.JOINING,
                escape(lastViewChange),
                countsInViewChanges);
    }

    /** {@code text} as the inside of a JSON string. */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    /** The text of the inside of a JSON string written by {@link #escape}. */
    static String unescape(String inside) {
        if (inside.indexOf('\\') < 0) {
            return inside;
        }
        StringBuilder out = new StringBuilder(inside.length());
        for (int i = 0; i < inside.length(); i++) {
            char c = inside.charAt(i);
            if (c != '\\' || i + 1 == inside.length()) {
                out.append(c);
                continue;
            }
            char next = inside.charAt(++i);
            switch (next) {
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (i + 4 >= inside.length()) {
                        throw new IllegalArgumentException("a \\u escape is cut short in '" + inside + "'");
                    }
                    out.append((char) Integer.parseInt(inside.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> out.append(next);
            }
        }
        return out.toString();
    }
}
