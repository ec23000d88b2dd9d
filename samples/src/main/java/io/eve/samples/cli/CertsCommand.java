package io.eve.samples.cli;

import io.eve.config.ClusterConfig;
import io.eve.server.security.Bundles;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code eve certs}: writes a cluster's bundle (docs/operations.md, "Security"): a fresh CA, and per node a
 * folder with its private key, its certificate, the CA's certificate and (bft) its authenticator keys; per
 * client identity a folder with its key and certificate. The CA's private key is never written.
 */
@Command(
        name = "certs",
        mixinStandardHelpOptions = true,
        description = "Generate a CA, each node's TLS identity (and bft authenticator keys), and client identities.")
final class CertsCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, description = "The cluster configuration file.")
    Path config;

    @Option(names = "--out", required = true, description = "The folder to write (must not exist or be empty).")
    Path out;

    @Option(
            names = "--clients",
            defaultValue = "1",
            description = "Client identities to write, client-0.. (default ${DEFAULT-VALUE}); each is granted"
                    + " 16777216 client ids.")
    int clients;

    @Option(
            names = "--days",
            defaultValue = "365",
            description = "How long the certificates are valid, in days (default ${DEFAULT-VALUE}).")
    int days;

    @Override
    public Integer call() throws Exception {
        if (days < 1) {
            throw new IllegalArgumentException("--days = " + days + " must be at least 1");
        }
        ClusterConfig cluster = ClusterConfig.load(config);
        boolean macs = cluster.profile().quorum() && cluster.r() >= 1;
        PrintStream stdout = System.out;
        for (String line : Bundles.validFor(Duration.ofDays(days)).write(cluster, out, clients, macs)) {
            stdout.println("wrote " + line);
        }
        stdout.printf(
                "copy each node only its own node-<id> folder and each client its client-<c> folder (keys stay"
                        + " owner-only); set tls.enabled = on and tls.dir = %s%n",
                out);
        return 0;
    }
}
