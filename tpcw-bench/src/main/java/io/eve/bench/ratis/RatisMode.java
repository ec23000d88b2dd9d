package io.eve.bench.ratis;

import io.eve.bench.suite.ClientSide;
import io.eve.bench.suite.Mode;
import io.eve.bench.suite.Workload;
import java.nio.file.Path;

/**
 * Apache Ratis as a {@link Mode}: a three-node Raft group on loopback ({@link RatisCluster}), each node
 * applying every request to its own key-value store sequentially, in log order. The thread count does
 * not apply. Raft state lives in a directory under {@code storageRoot} (the suite's output directory,
 * under {@code target/}); the log itself is kept in memory.
 */
public final class RatisMode implements Mode {
    private final Path storageRoot;

    public RatisMode(Path storageRoot) {
        this.storageRoot = storageRoot;
    }

    @Override
    public String id() {
        return "ratis";
    }

    @Override
    public String label() {
        return "Apache Ratis 3.2.1 (3 nodes)";
    }

    @Override
    public int executionReplicas() {
        return RatisCluster.NODES;
    }

    @Override
    public boolean usesThreads() {
        return false;
    }

    @Override
    public Running start(Workload workload, ClientSide clients) throws Exception {
        return RatisCluster.start(workload, clients, storageRoot);
    }
}
