package io.eve.tpcw.bench;

import io.eve.config.ClusterConfig;
import io.eve.config.NodeAddress;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the {@code /status} of a cluster's replica processes ({@code io.eve.ReplicaStatus#toJson()} on
 * {@code metrics.port + node}) and compares their committed state: the audit at the end of a multi-process
 * TPC-W run. Thread-safe.
 */
public final class ReplicaProbe {

    private final ClusterConfig cluster;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    /** What one replica said about itself. */
    public record Status(int node, String roles, long view, long stableSeq, String stableRoot, long rollbacks) {}

    /** The outcome of the audit: whether the execution replicas agree, on which batch, and what each said. */
    public record Audit(boolean agreed, long seq, List<Status> statuses) {
        /** One line per replica, for people. */
        public String describe() {
            StringBuilder text = new StringBuilder(agreed ? "equal roots" : "roots DIFFER or did not settle");
            for (Status s : statuses) {
                text.append(String.format(
                        "%n  node %d (%s): view %d, stable batch %d, root %s, rollbacks %d",
                        s.node(), s.roles(), s.view(), s.stableSeq(), s.stableRoot(), s.rollbacks()));
            }
            return text.toString();
        }
    }

    public ReplicaProbe(ClusterConfig cluster) {
        if (cluster.metricsPort() <= 0) {
            throw new IllegalArgumentException("the cluster serves no /status: metrics.port is not set");
        }
        this.cluster = cluster;
    }

    /** The nodes hosting an execution replica (whose roots are compared). */
    public List<Integer> executionNodes() {
        return cluster.profile().quorum()
                ? cluster.executionReplicas()
                : cluster.nodes().stream().map(NodeAddress::id).toList();
    }

    /** Every node's id. */
    public List<Integer> nodes() {
        return cluster.nodes().stream().map(NodeAddress::id).toList();
    }

    /** Replica {@code node}'s status, or empty while it does not answer. */
    public Optional<Status> status(int node) throws InterruptedException {
        URI uri = URI.create("http://" + cluster.node(node).host() + ":" + (cluster.metricsPort() + node) + "/status");
        HttpRequest request =
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(parse(node, response.body())) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Waits until every node answers its status; false if one still does not after {@code limit}. */
    public boolean awaitAnswering(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        for (int node : nodes()) {
            while (status(node).isEmpty()) {
                if (System.nanoTime() - deadline > 0) {
                    return false;
                }
                Thread.sleep(100);
            }
        }
        return true;
    }

    /** Rollbacks and the highest view over every node that answers now. */
    public Status totals() throws InterruptedException {
        long rollbacks = 0;
        long view = 0;
        for (int node : nodes()) {
            Optional<Status> status = status(node);
            if (status.isPresent()) {
                rollbacks += status.get().rollbacks();
                view = Math.max(view, status.get().view());
            }
        }
        return new Status(-1, "all", view, -1, "", rollbacks);
    }

    /**
     * Once the load has stopped: waits up to {@code limit} until every execution replica reports the same
     * stable batch with the same root, and returns what they said (the last statuses seen if they never do).
     */
    public Audit awaitEqualRoots(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        List<Status> last = List.of();
        while (true) {
            last = executionStatuses();
            if (agree(last)) {
                return new Audit(true, last.get(0).stableSeq(), last);
            }
            if (System.nanoTime() - deadline > 0) {
                return new Audit(false, -1, last);
            }
            Thread.sleep(100);
        }
    }

    private List<Status> executionStatuses() throws InterruptedException {
        List<Status> statuses = new ArrayList<>();
        for (int node : executionNodes()) {
            status(node).ifPresent(statuses::add);
        }
        return statuses;
    }

    private boolean agree(List<Status> statuses) {
        if (statuses.size() != executionNodes().size()) {
            return false;
        }
        Status first = statuses.get(0);
        return first.stableSeq() >= 0
                && statuses.stream()
                        .allMatch(s -> s.stableSeq() == first.stableSeq()
                                && s.stableRoot().equals(first.stableRoot()));
    }

    static Status parse(int node, String json) {
        io.eve.ReplicaStatus status = io.eve.ReplicaStatus.fromJson(json);
        return new Status(
                node,
                status.roles(),
                status.view(),
                status.stableSeq(),
                status.stableRoot() == null ? "" : status.stableRoot().toHex(),
                status.rollbacks());
    }
}
