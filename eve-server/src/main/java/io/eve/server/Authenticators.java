package io.eve.server;

import io.eve.config.ClusterConfig;
import io.eve.config.ConfigException;
import io.eve.transport.wire.FrameCodec;
import io.eve.verify.auth.Authenticator;
import io.eve.verify.auth.Envelopes;
import io.eve.verify.auth.MacKeys;
import java.io.IOException;
import java.nio.file.Path;

/** The authenticators of a bft node (docs/quorum.md, "Authenticators"), from the configuration's key file. */
final class Authenticators {
    private Authenticators() {}

    /**
     * The envelopes of node {@code node}: the key file named by {@code auth.keys-file}, relative to {@code
     * base} (the configuration file's folder, or the working directory).
     */
    static Envelopes envelopes(ClusterConfig cluster, Path base, int node) {
        if (cluster.authKeysFile() == null) {
            throw new ConfigException("the " + cluster.profile().key() + " profile (r = " + cluster.r()
                    + ") authenticates every message between replicas and needs auth.keys-file; generate one"
                    + " with: ./eve keys --config <file> --out <keys file>");
        }
        Path keysFile = base.resolve(cluster.authKeysFile());
        int[] ids = cluster.nodes().stream().mapToInt(n -> n.id()).toArray();
        try {
            MacKeys keys = MacKeys.load(keysFile, ids);
            return new Envelopes(new Authenticator(keys, node), new FrameCodec(cluster.maxFrameBytes()));
        } catch (IOException e) {
            throw new ConfigException("cannot read auth.keys-file " + keysFile + ": " + e.getMessage());
        }
    }
}
