package io.eve.server;

import io.eve.config.ClusterConfig;
import io.eve.config.ConfigException;
import io.eve.transport.wire.FrameCodec;
import io.eve.verify.auth.Authenticator;
import io.eve.verify.auth.Envelopes;
import io.eve.verify.auth.MacKeys;
import java.nio.file.Path;

/**
 * The authenticators of a bft node (docs/quorum.md, "Authenticators"), from this node's own key file: the
 * keys of its pairs and its self key, nothing another node holds alone. With signed evidence over mutual TLS on
 * TCP the links carry no tags ({@link Envelopes#onAuthenticatedLinks}).
 */
final class Authenticators {
    /** The placeholder for the node id in {@code auth.keys-file}. */
    static final String NODE = "{node}";

    private Authenticators() {}

    /**
     * The envelopes of node {@code node}: the key file named by {@code auth.keys-file} (relative to {@code
     * base}, the configuration file's folder; {@value #NODE} stands for the node id), or else
     * {@code <tls.dir>/node-<id>/macs.properties}.
     */
    static Envelopes envelopes(ClusterConfig cluster, Path base, int node) {
        Path keysFile = keysFile(cluster, base, node);
        int[] ids = cluster.nodes().stream().mapToInt(n -> n.id()).toArray();
        MacKeys keys = MacKeys.loadNode(keysFile, ids, node);
        if (!cluster.signedEvidence()) {
            // auth.signed-evidence = off (docs/quorum.md, "Signed evidence"): MAC evidence, whose view-change
            // certificates a Byzantine origin can make valid at one verifier and not at another.
            keys = keys.withoutSigning();
        } else if (!keys.signs()) {
            throw new ConfigException(keysFile + ": no evidence signing keys (sign.private." + node
                    + " and sign.public.<id>), which auth.signed-evidence = on (the default for bft) needs;"
                    + " regenerate the keys with ./eve certs or ./eve keys, or set auth.signed-evidence = off");
        }
        Authenticator authenticator = new Authenticator(keys, node);
        FrameCodec codec = new FrameCodec(cluster.maxFrameBytes());
        if (keys.signs() && cluster.tls().enabled() && cluster.transport().equals("netty")) {
            // Every link is mutual TLS on TCP, which proves the sender; signatures carry what is forwarded. Over RDMA
            // a ring entry's sender is not proven by TLS, so there the tags stay (docs/quorum.md, "Tags or TLS").
            return Envelopes.onAuthenticatedLinks(authenticator, codec);
        }
        return new Envelopes(authenticator, codec);
    }

    static Path keysFile(ClusterConfig cluster, Path base, int node) {
        if (cluster.authKeysFile() != null) {
            return base.resolve(cluster.authKeysFile().replace(NODE, Integer.toString(node)));
        }
        if (cluster.tls().dir() != null) {
            return cluster.tls().nodeFolder(node).resolve(MacKeys.NODE_FILE);
        }
        throw new ConfigException("the " + cluster.profile().key() + " profile (r = " + cluster.r()
                + ") authenticates every message between replicas and needs each node's own key file: set tls.dir"
                + " to a bundle of ./eve certs --config <file> --out <dir> (node i reads node-<i>/"
                + MacKeys.NODE_FILE
                + "), or auth.keys-file to this node's file of ./eve keys --config <file> --out <dir>"
                + " ({node} stands for the node id)");
    }
}
