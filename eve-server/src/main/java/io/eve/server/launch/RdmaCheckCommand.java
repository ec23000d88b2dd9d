package io.eve.server.launch;

import io.eve.config.ClusterConfig;
import io.eve.rdma.RdmaCheck;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code eve rdma-check --config F --node N}: the RDMA self-check (docs/rdma.md, "Checking a machine"):
 * device, GID, memlock, inline limit, a loopback write through a ring, and the path to each peer. Exit
 * code 0 when RDMA is ready, 1 otherwise. Binds the node's RDMA address: run it while the replica is
 * stopped.
 */
@Command(
        name = "rdma-check",
        mixinStandardHelpOptions = true,
        description = "Check that this machine can run a node over RDMA (transport = rdma | auto), and say why not.")
public final class RdmaCheckCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, description = "The cluster configuration file.")
    Path config;

    @Option(names = "--node", required = true, description = "The node id this machine runs.")
    int node;

    @Override
    public Integer call() {
        ClusterConfig cluster = ClusterConfig.load(config);
        return RdmaCheck.ofThisMachine(cluster).run(cluster, node, System.out) ? 0 : 1;
    }
}
