package io.eve.rdma;

import io.eve.config.ClusterConfig;
import io.eve.config.NodeAddress;
import io.eve.rdma.ring.Poll;
import io.eve.rdma.ring.RingLayout;
import io.eve.rdma.ring.RingReader;
import io.eve.rdma.ring.RingWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/**
 * The self-check a user runs first on a machine meant for {@code transport=rdma} ({@code eve rdma-check
 * --config F --node N}, docs/rdma.md): the probe's checks with their fixes, each RDMA device's ports with
 * state, link layer and GID 0 (from sysfs), and, when the probe passes, a loopback through a ring on the
 * node's RDMA address (a 32-byte entry, posted inline, and a 4000-byte one, read back byte-exact) that
 * also reports the queue pair's inline limit; last, which path the node will use to each peer. It binds
 * the node's RDMA address: run it while the replica is stopped.
 *
 * <p>Stateless; every run prints its report and returns whether RDMA is ready.
 */
public final class RdmaCheck {
    private static final long LOCKED_BYTES_PER_PEER = 2L << 20;
    private static final int LOOPBACK_RING_BYTES = 64 << 10;
    private static final int LOOPBACK_MAX_PAYLOAD = 4096;
    private static final long LOOPBACK_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final RdmaProbe probe;
    private final Path deviceDir;
    private final BiFunction<Integer, InetSocketAddress, OneSidedFabric> fabrics;

    /**
     * @param probe the machine's probe
     * @param deviceDir where RDMA devices are listed ({@code /sys/class/infiniband})
     * @param fabrics opens the fabric of a node on its RDMA address (DiSNI on a real machine)
     */
    public RdmaCheck(RdmaProbe probe, Path deviceDir, BiFunction<Integer, InetSocketAddress, OneSidedFabric> fabrics) {
        this.probe = probe;
        this.deviceDir = deviceDir;
        this.fabrics = fabrics;
    }

    /** The check of this machine, with DiSNI for the loopback. */
    public static RdmaCheck ofThisMachine(ClusterConfig cluster) {
        return new RdmaCheck(
                RdmaProbe.ofThisMachine(
                        LOCKED_BYTES_PER_PEER * Math.max(1, cluster.nodes().size())),
                Path.of("/sys/class/infiniband"),
                TransportSelector::newDisniFabric);
    }

    /**
     * Prints the report for node {@code node} of {@code cluster} to {@code out}.
     *
     * @return true if RDMA is ready on this machine for this node (every check and the loopback passed)
     * @throws IllegalArgumentException if {@code node} is not a node of the configuration
     */
    public boolean run(ClusterConfig cluster, int node, PrintStream out) {
        if (cluster.nodes().stream().noneMatch(address -> address.id() == node)) {
            throw new IllegalArgumentException("node " + node + " is not in the configuration's nodes "
                    + cluster.nodes() + "; give --node one of their ids");
        }
        out.printf("RDMA self-check of node %d (transport = %s)%n", node, cluster.transport());
        out.println("checks:");
        RdmaProbe.Result result = probe.probe();
        for (RdmaProbe.Check check : result.checks()) {
            out.printf("  [%s] %s: %s%n", check.passed() ? "ok" : "FAIL", check.name(), check.detail());
            if (!check.passed()) {
                out.printf("         fix: %s%n", check.fix());
            }
        }
        out.println("devices:");
        for (String line : devices()) {
            out.println("  " + line);
        }
        NodeAddress rdma = rdmaAddress(cluster, node);
        boolean loopback = false;
        if (rdma == null) {
            out.println("loopback: skipped: rdma.nodes gives no RDMA address for node " + node
                    + " (add it, e.g. rdma.nodes=" + node + "@<IPv4 of the RDMA NIC>:7500)");
        } else if (!result.available()) {
            out.println("loopback: skipped: fix the failed checks above first");
        } else {
            loopback = loopback(node, new InetSocketAddress(rdma.host(), rdma.port()), out);
        }
        out.println("paths:");
        boolean ready = result.available() && loopback;
        for (NodeAddress peer : cluster.nodes()) {
            if (peer.id() != node) {
                out.printf("  node %d: %s%n", peer.id(), path(cluster, peer.id(), ready));
            }
        }
        out.println(
                ready
                        ? "result: RDMA is ready on this machine"
                        : "result: RDMA is NOT ready on this machine: with transport = auto the replica runs on"
                                + " Netty alone; with transport = rdma it refuses to start");
        return ready;
    }

    private static NodeAddress rdmaAddress(ClusterConfig cluster, int node) {
        return cluster.rdmaNodes().stream()
                .filter(address -> address.id() == node)
                .findFirst()
                .orElse(null);
    }

    private String path(ClusterConfig cluster, int peer, boolean ready) {
        String mode = cluster.transport();
        if (mode.equals("netty")) {
            return "Netty (transport = netty)";
        }
        NodeAddress rdma = rdmaAddress(cluster, peer);
        if (rdma == null) {
            return "Netty: rdma.nodes gives no RDMA address for it";
        }
        if (ready) {
            return "RDMA rings to " + rdma.host() + ":" + rdma.port() + ", control channel " + rdma.host() + ":"
                    + (rdma.port() + 1) + " (falls back to the control channel, and back to rings, by itself)";
        }
        return mode.equals("auto")
                ? "Netty (transport = auto and RDMA is not ready here)"
                : "none: transport = rdma and RDMA is not ready here, so the replica will not start";
    }

    /** One line per port of every device: state, link layer, GID 0; or why there is none. */
    List<String> devices() {
        List<String> lines = new ArrayList<>();
        if (!Files.isDirectory(deviceDir)) {
            lines.add("none: " + deviceDir + " does not exist (no RDMA driver loaded). Load one, e.g. for"
                    + " Soft-RoCE: modprobe rdma_rxe; rdma link add rxe0 type rxe netdev <interface>");
            return lines;
        }
        try (Stream<Path> devices = Files.list(deviceDir)) {
            for (Path device : devices.sorted().toList()) {
                Path ports = device.resolve("ports");
                if (!Files.isDirectory(ports)) {
                    lines.add(device.getFileName() + ": no ports listed");
                    continue;
                }
                try (Stream<Path> each = Files.list(ports)) {
                    for (Path port : each.sorted().toList()) {
                        lines.add(device.getFileName() + " port " + port.getFileName() + ": state "
                                + read(port.resolve("state")) + ", link layer " + read(port.resolve("link_layer"))
                                + ", GID[0] " + read(port.resolve("gids/0")));
                    }
                }
            }
        } catch (IOException e) {
            lines.add("cannot list " + deviceDir + ": " + e.getMessage());
        }
        if (lines.isEmpty()) {
            lines.add("none under " + deviceDir + ". Create one, e.g. for Soft-RoCE: modprobe rdma_rxe; rdma link"
                    + " add rxe0 type rxe netdev <interface>");
        }
        return lines;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).trim();
        } catch (IOException e) {
            return "unreadable (" + e.getMessage() + ")";
        }
    }

    /** Writes two entries through a ring into this node's own memory and reads them back. */
    private boolean loopback(int node, InetSocketAddress address, PrintStream out) {
        RingLayout layout = new RingLayout(LOOPBACK_RING_BYTES, LOOPBACK_MAX_PAYLOAD);
        ByteBuffer region = layout.newRegion();
        OneSidedFabric fabric;
        try {
            fabric = fabrics.apply(node, address);
        } catch (RuntimeException e) {
            out.println("loopback: FAIL: the fabric did not start on " + address + ": " + e.getMessage());
            return false;
        }
        RemoteRegion remote = null;
        try {
            RegionDescriptor descriptor = fabric.register(node, region);
            remote = fabric.open(node, descriptor);
            RingWriter writer = new RingWriter(layout, remote, region);
            RingReader reader = new RingReader(layout, region);
            Random random = new Random(node);
            for (int size : new int[] {32, 4000}) {
                byte[] payload = new byte[size];
                random.nextBytes(payload);
                String failure = roundTrip(writer, reader, remote, payload);
                if (failure != null) {
                    out.println(
                            "loopback: FAIL: a " + size + "-byte entry through a ring on " + address + ": " + failure);
                    return false;
                }
            }
            out.println("loopback: ok: a 32-byte entry (posted inline) and a 4000-byte entry went through a ring on "
                    + address + " and read back byte-exact");
            out.println("inline limit: the queue pair takes " + remote.maxInline() + " bytes of inline data"
                    + (remote.maxInline() == 0 ? " (the device refused inline data: every write is a DMA read)" : ""));
            return true;
        } catch (RuntimeException e) {
            out.println("loopback: FAIL on " + address + ": " + e.getMessage());
            return false;
        } finally {
            if (remote != null) {
                remote.close();
            }
            fabric.close();
        }
    }

    private static String roundTrip(RingWriter writer, RingReader reader, RemoteRegion remote, byte[] payload) {
        if (!writer.tryAppend(1, payload, 0, payload.length)) {
            return "the ring had no room";
        }
        writer.flush();
        byte[][] seen = new byte[1][];
        long deadline = System.nanoTime() + LOOPBACK_TIMEOUT_NANOS;
        while (seen[0] == null) {
            Throwable failure = writer.failure();
            if (failure != null) {
                return failure.getMessage();
            }
            Poll poll = reader.poll((seq, bytes) -> seen[0] = bytes);
            if (poll == Poll.CORRUPT) {
                return "the entry arrived with a wrong checksum";
            }
            if (System.nanoTime() - deadline > 0) {
                return "the entry did not arrive within 5 s (the write never completed)";
            }
            Thread.onSpinWait();
        }
        return Arrays.equals(seen[0], payload) ? null : "the bytes read back differ from those written";
    }
}
