package io.eve.samples.cli;

import io.eve.config.ClusterConfig;
import io.eve.config.NodeAddress;
import io.eve.verify.auth.MacKeys;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code eve keys}: writes a fresh key file of the bft profile's authenticators (one random HMAC-SHA256
 * key per pair of the configuration's nodes, docs/quorum.md), readable by its owner only, never
 * overwriting a file that exists. Every node of the cluster gets a copy; clients need none.
 */
@Command(
        name = "keys",
        mixinStandardHelpOptions = true,
        description = "Generate the authenticators' key file for a cluster's nodes (bft profile).")
final class KeysCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, description = "The cluster configuration file.")
    Path config;

    @Option(names = "--out", required = true, description = "Where to write the key file (must not exist).")
    Path out;

    @Override
    public Integer call() throws Exception {
        ClusterConfig cluster = ClusterConfig.load(config);
        int[] ids = cluster.nodes().stream().mapToInt(NodeAddress::id).toArray();
        MacKeys.generate(ids, new SecureRandom()).write(out);
        PrintStream stdout = System.out;
        stdout.printf(
                "wrote %d pair keys for nodes %s to %s (copy it to every node; set auth.keys-file to it)%n",
                ids.length * (ids.length - 1) / 2, java.util.Arrays.toString(ids), out);
        return 0;
    }
}
