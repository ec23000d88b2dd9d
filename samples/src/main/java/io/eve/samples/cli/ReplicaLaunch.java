package io.eve.samples.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What it takes to run replicas as separate processes on this machine: free ports, the command that
 * starts one replica with this JVM's class path, and a replica's {@code /status} read back. Shared by the
 * demo and the multi-process tests.
 */
public final class ReplicaLaunch {

    private ReplicaLaunch() {}

    /**
     * What a replica's {@code /status} says ({@link io.eve.ReplicaStatus#toJson()}). {@code role} is the
     * node's roles in words: "primary" or "backup" for primary-backup, or the quorum process's roles ("execution primary + verifier", "verifier", ...); a quorum process without
     * an execution replica reports {@code stableSeq} -1 and an empty root.
     */
    public record Status(
            boolean primary,
            long view,
            long stableSeq,
            String stableRoot,
            long rollbacks,
            long transfers,
            long transferBytes,
            long replies,
            String role) {

        /** Parses the JSON a replica serves on {@code /status}; a missing field is an error naming it. */
        public static Status parse(String json) {
            io.eve.ReplicaStatus status = io.eve.ReplicaStatus.fromJson(json);
            return new Status(
                    status.primary(),
                    status.view(),
                    status.stableSeq(),
                    status.stableRoot() == null ? "" : status.stableRoot().toHex(),
                    status.rollbacks(),
                    status.transfers(),
                    status.transferBytes(),
                    status.repliesReleased(),
                    status.roles());
        }
    }

    /**
     * Two transport ports and a metrics port {@code m} whose neighbour {@code m + 1} (node 1's metrics) is
     * free as well: {port of node 0, port of node 1, m}.
     */
    public static int[] freePorts() throws IOException {
        return freePorts(2);
    }

    /**
     * {@code count} transport ports and a metrics port {@code m} with {@code m + 1 .. m + count - 1} free as
     * well (node {@code i}'s metrics): {port of node 0, ..., port of node count - 1, m}.
     *
     * <p>The ports come from below the kernel's ephemeral range ({@link PortRange}), so no outgoing connection
     * of any process on this machine can hold one of them: a port drawn from inside that range was free when
     * drawn, but while a replica started (or was down between a kill and its restart) a connection could take
     * it as its source port (a peer dialing the very port it dials gets a connection to itself), and the
     * replica then failed to bind it.
     */
    public static int[] freePorts(int count) throws IOException {
        return PortRange.belowEphemeral().freePorts(count, count - 1);
    }

    /** The command that starts replica {@code node} of {@code config} with this JVM and class path. */
    public static List<String> replicaCommand(Path config, int node, boolean join, List<String> jvmOptions) {
        return replicaCommand(config, node, join, jvmOptions, List.of());
    }

    /**
     * As {@link #replicaCommand(Path, int, boolean, List)}, with {@code replicaArgs} after the replica's own
     * ({@code --app CLASS}, say).
     */
    public static List<String> replicaCommand(
            Path config, int node, boolean join, List<String> jvmOptions, List<String> replicaArgs) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                EveKv.class.getName(),
                "replica",
                "--config",
                config.toString(),
                "--node",
                Integer.toString(node)));
        if (join) {
            command.add("--join");
        }
        command.addAll(replicaArgs);
        return command;
    }
}
