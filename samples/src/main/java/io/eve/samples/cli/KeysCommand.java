package io.eve.samples.cli;

import io.eve.config.ClusterConfig;
import io.eve.config.NodeAddress;
import io.eve.verify.auth.MacKeys;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code eve keys}: writes fresh authenticator keys of the bft profile (docs/quorum.md), one file per node
 * ({@code <out>/node-<id>/macs.properties}) holding only that node's pair keys and its self key, readable by
 * its owner only, never overwriting a file that exists. Each node gets its own file and no other; clients
 * need none. {@code eve certs} writes the same files beside each node's TLS identity.
 */
@Command(
        name = "keys",
        mixinStandardHelpOptions = true,
        description = "Generate the authenticators' keys for a cluster's nodes (bft profile): one file per node.")
final class KeysCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, description = "The cluster configuration file.")
    Path config;

    @Option(
            names = "--out",
            required = true,
            description = "The folder to write node-<id>/macs.properties into (files must not exist).")
    Path out;

    @Override
    public Integer call() throws Exception {
        ClusterConfig cluster = ClusterConfig.load(config);
        int[] ids = cluster.nodes().stream().mapToInt(NodeAddress::id).toArray();
        for (int id : ids) {
            Path file = out.resolve("node-" + id).resolve(MacKeys.NODE_FILE);
            if (Files.exists(file)) {
                throw new IllegalArgumentException(file + " exists; keys are written into a new folder");
            }
        }
        MacKeys.generate(ids, new SecureRandom()).writeNodeFiles(out);
        PrintStream stdout = System.out;
        stdout.printf(
                "wrote the keys of nodes %s to %s/node-<id>/%s, each with only that node's %d pair keys and self key"
                        + " (copy each node only its own file; set auth.keys-file = %s/node-{node}/%s)%n",
                Arrays.toString(ids), out, MacKeys.NODE_FILE, ids.length - 1, out, MacKeys.NODE_FILE);
        return 0;
    }
}
