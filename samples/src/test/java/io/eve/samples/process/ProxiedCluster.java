package io.eve.samples.process;

import io.eve.samples.cli.ReplicaLaunch;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * A quorum cluster (crash or bft profile) of replica JVMs whose every link goes through its own
 * {@link LinkProxy}: one per directed pair of replicas (replica {@code from} reaches replica {@code to}
 * through {@link #link}) and one in front of each replica for the clients. Each replica gets its own
 * configuration naming the proxies it dials; clients read {@link #clientConfig()}. bft clusters get a fresh
 * key file. Wired first (proxies listening, configurations written), so that a test can arm a proxy before
 * the first byte crosses it, then {@linkplain #launch launched}. Closing stops the replicas, then the proxies.
 *
 * <p>Used from the test thread.
 */
final class ProxiedCluster implements AutoCloseable {
    private final Path dir;
    private final int nodes;
    private final int[] ports;
    private final Path[] nodeConfigs;
    private final Path clientConfig;
    private final LinkProxy[][] links;
    private final List<LinkProxy> proxies = new ArrayList<>();
    private ReplicaProcesses processes;

    private ProxiedCluster(Path dir, int nodes) throws IOException {
        this.dir = dir;
        this.nodes = nodes;
        this.ports = ReplicaLaunch.freePorts(nodes);
        this.nodeConfigs = new Path[nodes];
        this.clientConfig = dir.resolve("clients.properties");
        this.links = new LinkProxy[nodes][nodes];
    }

    /**
     * Proxies and configurations for {@code profile} ("crash": 3 replicas, "bft": 4) with the failure (view)
     * timeout {@code failureTimeoutMillis}; nothing runs yet but the proxies.
     */
    static ProxiedCluster wire(Path dir, String profile, int failureTimeoutMillis) throws IOException {
        int nodes = profile.equals("bft") ? 4 : 3;
        ProxiedCluster cluster = new ProxiedCluster(dir, nodes);
        try {
            cluster.writeConfigs(profile, failureTimeoutMillis, cluster.wireProxies());
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** Starts the proxies; returns reach[n][m], the port node n dials for node m (n = nodes: the clients). */
    private int[][] wireProxies() throws IOException {
        int[][] reach = new int[nodes + 1][nodes];
        for (int to = 0; to < nodes; to++) {
            InetSocketAddress target = new InetSocketAddress("127.0.0.1", ports[to]);
            for (int from = 0; from < nodes; from++) {
                if (from == to) {
                    reach[from][to] = ports[to];
                } else {
                    links[from][to] = proxy(from + "->" + to, target);
                    reach[from][to] = links[from][to].port();
                }
            }
            reach[nodes][to] = proxy("clients->" + to, target).port();
        }
        return reach;
    }

    private void writeConfigs(String profile, int failureTimeoutMillis, int[][] reach) throws IOException {
        boolean bft = profile.equals("bft");
        for (int node = 0; node < nodes; node++) {
            nodeConfigs[node] = dir.resolve("node-" + node + ".properties");
            writeConfig(nodeConfigs[node], profile, reach[node], failureTimeoutMillis, bft);
        }
        writeConfig(clientConfig, profile, reach[nodes], failureTimeoutMillis, bft);
        if (bft) {
            ReplicaProcesses.writeKeys(dir, nodes);
        }
    }

    private void writeConfig(Path file, String profile, int[] reachable, int failureTimeoutMillis, boolean bft)
            throws IOException {
        List<String> addresses = new ArrayList<>();
        for (int node = 0; node < reachable.length; node++) {
            addresses.add(node + "@127.0.0.1:" + reachable[node]);
        }
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "profile=" + profile,
                        "nodes=" + String.join(", ", addresses),
                        "executor.threads=4",
                        "heartbeat.interval-ms=50",
                        "failure.timeout-ms=" + failureTimeoutMillis,
                        "metrics.port=" + ports[nodes],
                        bft ? "auth.keys-file=" + ReplicaProcesses.KEYS_FILE + "\n" : ""),
                StandardCharsets.UTF_8);
    }

    /** Starts every replica and waits until each answers its status. */
    ReplicaProcesses launch() throws IOException, InterruptedException {
        processes = ReplicaProcesses.start(dir, clientConfig, nodeConfigs, Arrays.copyOf(ports, nodes), ports[nodes]);
        return processes;
    }

    int nodes() {
        return nodes;
    }

    Path clientConfig() {
        return clientConfig;
    }

    /** The proxy through which replica {@code from} reaches replica {@code to}. */
    LinkProxy link(int from, int to) {
        return links[from][to];
    }

    /** Where replica {@code node} listens itself, behind its proxies (for hostile peers). */
    InetSocketAddress transportAddress(int node) {
        return new InetSocketAddress("127.0.0.1", ports[node]);
    }

    /** Cuts every link between {@code node} and the other replicas; clients still reach it. */
    void isolate(int node) {
        for (int other = 0; other < nodes; other++) {
            if (other != node) {
                links[node][other].cut();
                links[other][node].cut();
            }
        }
    }

    /** Delays every link between replicas by {@code millis}. */
    void delayReplicaLinks(long millis) {
        forEachReplicaLink(link -> link.delay(millis));
    }

    /** Ends every cut and delay between replicas. */
    void healReplicaLinks() {
        forEachReplicaLink(LinkProxy::heal);
    }

    private void forEachReplicaLink(Consumer<LinkProxy> action) {
        for (LinkProxy[] row : links) {
            for (LinkProxy link : row) {
                if (link != null) {
                    action.accept(link);
                }
            }
        }
    }

    private LinkProxy proxy(String name, InetSocketAddress target) throws IOException {
        LinkProxy proxy = LinkProxy.start(name, target);
        proxies.add(proxy);
        return proxy;
    }

    @Override
    public void close() {
        if (processes != null) {
            processes.close();
        }
        for (LinkProxy proxy : proxies) {
            proxy.close();
        }
    }
}
