package io.eve.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/**
 * The quorum profiles' part of a {@link ClusterConfig} (Eve §6.1): the fault thresholds and which nodes
 * host an execution replica and a verifier. Rule when the roles are not listed: the first
 * {@code nE = u + max(u, r) + 1} nodes host execution replicas, the first {@code nV = 2u + r + 1} nodes host
 * verifiers, in the order of {@code nodes}; so crash's 3 nodes each host one of each, and bft's 4 nodes
 * all host a verifier, the first 3 also an execution replica.
 */
record QuorumRoles(
        int u,
        int r,
        List<Integer> executionReplicas,
        List<Integer> verifiers,
        String authKeysFile,
        boolean signedEvidence) {
    /** The switch of signed view-change evidence (docs/quorum.md, "Signed evidence"): on by default for bft. */
    static final String SIGNED_EVIDENCE = "auth.signed-evidence";

    static QuorumRoles parse(ClusterConfig.Profile profile, Properties properties, List<NodeAddress> nodes) {
        if (!profile.quorum()) {
            for (String key : List.of("quorum.u", "quorum.r", "quorum.execution-replicas", "quorum.verifiers")) {
                if (properties.getProperty(key) != null) {
                    throw new ConfigException(
                            key + " applies to the crash and bft profiles only, not to " + profile.key());
                }
            }
            for (String key : List.of("auth.keys-file", SIGNED_EVIDENCE)) {
                if (properties.getProperty(key) != null) {
                    throw new ConfigException(key + " applies to the bft profile only, not to " + profile.key());
                }
            }
            return new QuorumRoles(0, 0, List.of(), List.of(), null, false);
        }
        int u = ClusterConfig.integer(properties, "quorum.u", 1);
        int r = ClusterConfig.integer(properties, "quorum.r", profile == ClusterConfig.Profile.BFT ? 1 : 0);
        if (u < 1) {
            throw new ConfigException("quorum.u = " + u + " must be at least 1");
        }
        List<Integer> ids = nodes.stream().map(NodeAddress::id).toList();
        int executionCount = u + Math.max(u, r) + 1;
        int verifierCount = 2 * u + r + 1;
        List<Integer> execution = ids(properties, "quorum.execution-replicas", ids, executionCount);
        List<Integer> verifiers = ids(properties, "quorum.verifiers", ids, verifierCount);
        String keys = properties.getProperty("auth.keys-file");
        for (String key : List.of("auth.keys-file", SIGNED_EVIDENCE)) {
            if (properties.getProperty(key) != null && profile != ClusterConfig.Profile.BFT) {
                throw new ConfigException(key + " applies to the bft profile only, not to " + profile.key());
            }
        }
        boolean signed = ClusterConfig.onOff(properties, SIGNED_EVIDENCE, profile == ClusterConfig.Profile.BFT);
        return new QuorumRoles(u, r, execution, verifiers, keys == null || keys.isBlank() ? null : keys.trim(), signed);
    }

    /** The listed ids, or the first {@code count} nodes (all of them if there are fewer, to fail validation). */
    private static List<Integer> ids(Properties properties, String key, List<Integer> nodes, int count) {
        String value = properties.getProperty(key);
        if (value == null) {
            return List.copyOf(nodes.subList(0, Math.min(count, nodes.size())));
        }
        List<Integer> ids = new ArrayList<>();
        for (String part : value.split(",")) {
            try {
                ids.add(Integer.parseInt(part.trim()));
            } catch (NumberFormatException e) {
                throw new ConfigException(key + " = '" + value + "': '" + part.trim() + "' is not a node id");
            }
        }
        return ids;
    }

    /** Checks the counts of each role against u and r, and that every node hosts a role. */
    static void validate(
            ClusterConfig.Profile profile,
            Set<Integer> nodes,
            int u,
            int r,
            List<Integer> execution,
            List<Integer> verifiers) {
        if (u < 1) {
            throw new ConfigException("quorum.u = " + u + " must be at least 1");
        }
        if (profile == ClusterConfig.Profile.CRASH && r != 0) {
            throw new ConfigException("quorum.r = " + r + " must be 0 for the crash profile (use bft for r >= 1)");
        }
        if (profile == ClusterConfig.Profile.BFT && r < 1) {
            throw new ConfigException("quorum.r = " + r + " must be at least 1 for the bft profile (use crash for 0)");
        }
        int executionCount = u + Math.max(u, r) + 1;
        int verifierCount = 2 * u + r + 1;
        check("quorum.execution-replicas", execution, executionCount, "u + max(u, r) + 1", u, r, nodes);
        check("quorum.verifiers", verifiers, verifierCount, "2u + r + 1", u, r, nodes);
        Set<Integer> hosted = new HashSet<>(execution);
        hosted.addAll(verifiers);
        for (int node : nodes) {
            if (!hosted.contains(node)) {
                throw new ConfigException("nodes: node " + node + " hosts neither an execution replica " + execution
                        + " nor a verifier " + verifiers + "; remove it");
            }
        }
    }

    private static void check(
            String key, List<Integer> ids, int expected, String formula, int u, int r, Set<Integer> nodes) {
        if (ids.size() != expected) {
            throw new ConfigException(key + " = " + ids + " names " + ids.size() + " nodes; the " + formula + " = "
                    + expected + " needed for u = " + u + ", r = " + r
                    + (nodes.size() < expected ? " (nodes lists only " + nodes.size() + ")" : ""));
        }
        Set<Integer> seen = new HashSet<>();
        for (int id : ids) {
            if (!nodes.contains(id)) {
                throw new ConfigException(key + " = " + ids + ": node " + id + " is not in nodes " + nodes);
            }
            if (!seen.add(id)) {
                throw new ConfigException(key + " = " + ids + ": node " + id + " appears twice");
            }
        }
    }
}
