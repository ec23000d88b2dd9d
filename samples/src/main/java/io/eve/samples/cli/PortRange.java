package io.eve.samples.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Where local replicas' listening ports are drawn from: a range the kernel never hands out on its own.
 *
 * <p>A port from {@code new ServerSocket(0)} lies in the ephemeral range ({@code
 * /proc/sys/net/ipv4/ip_local_port_range}, 32768-60999 by default), the same range outgoing connections take
 * their source ports from. Between the moment such a port is found free and the moment a replica binds it
 * (a JVM start, or the seconds a killed replica is down), any connection on the machine may take it, and a
 * client dialing the port of a replica that is not listening may take that very port as its source and
 * connect to itself (TCP simultaneous open; measured here: once in about 35,000 attempts). The replica's bind
 * then fails. Ports below the ephemeral range are taken only by an explicit bind, so they stay free until the
 * replica binds them.
 */
final class PortRange {
    private static final Path EPHEMERAL = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    /** Ports below this are left alone: the well-known and commonly configured ones. */
    static final int LOWEST = 10_000;
    /** Below this many candidate ports, drawing from the ephemeral range by {@code bind(0)} is the better bet. */
    static final int MIN_SPAN = 4_000;

    private static final int ATTEMPTS = 50;

    private final int low;
    private final int high;

    /** Candidate ports {@code [low, high)}; an empty range means "ask the kernel" ({@code bind(0)}). */
    PortRange(int low, int high) {
        if (low < 0 || high > 65_536 || high < low) {
            throw new IllegalArgumentException("not a port range: [" + low + ", " + high + ")");
        }
        this.low = low;
        this.high = high;
    }

    /**
     * The ports from {@link #LOWEST} up to the first ephemeral port, as this machine configures it; where that
     * leaves fewer than {@link #MIN_SPAN} ports or the range cannot be read (not Linux), the kernel's choice.
     */
    static PortRange belowEphemeral() throws IOException {
        String line;
        try {
            // Not Files.readString: on procfs (files of size 0) JDK 17 returns only its first byte.
            line = String.join(" ", Files.readAllLines(EPHEMERAL, StandardCharsets.US_ASCII));
        } catch (NoSuchFileException e) {
            return kernelChoice();
        }
        return belowEphemeral(line);
    }

    /** As {@link #belowEphemeral()}, for the contents of {@code ip_local_port_range} ("low high"). */
    static PortRange belowEphemeral(String ipLocalPortRange) {
        String[] bounds = ipLocalPortRange.trim().split("\\s+");
        int firstEphemeral;
        try {
            if (bounds.length != 2) {
                throw new NumberFormatException("two numbers expected");
            }
            firstEphemeral = Integer.parseInt(bounds[0]);
            Integer.parseInt(bounds[1]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "cannot read the ephemeral port range from \"" + ipLocalPortRange + "\" (" + EPHEMERAL + ")", e);
        }
        if (firstEphemeral - LOWEST < MIN_SPAN) {
            return kernelChoice();
        }
        return new PortRange(LOWEST, firstEphemeral);
    }

    static PortRange kernelChoice() {
        return new PortRange(0, 0);
    }

    boolean kernelChooses() {
        return low == high;
    }

    /**
     * {@code count} free ports and a port {@code m} with {@code m + 1 .. m + neighbours} free as well, each
     * checked by binding it on every address (so a listener on any one address of this machine rules it out):
     * {port 1, ..., port count, m}.
     */
    int[] freePorts(int count, int neighbours) throws IOException {
        if (count < 0 || neighbours < 0) {
            throw new IllegalArgumentException("count " + count + " and neighbours " + neighbours);
        }
        IOException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            List<ServerSocket> held = new ArrayList<>();
            try {
                int[] ports = new int[count + 1];
                for (int i = 0; i < count; i++) {
                    ports[i] = hold(held, draw(1));
                }
                int metrics = hold(held, draw(neighbours + 1));
                if (metrics + neighbours > 65_535) {
                    throw new IOException("port " + metrics + " has fewer than " + neighbours + " successors");
                }
                for (int i = 1; i <= neighbours; i++) {
                    hold(held, metrics + i);
                }
                ports[count] = metrics;
                return ports;
            } catch (IOException taken) {
                last = taken; // one of them was in use: draw again.
            } finally {
                for (ServerSocket socket : held) {
                    socket.close();
                }
            }
        }
        throw new IOException(
                "found no " + count + " free ports and a free block of " + (neighbours + 1) + " in " + ATTEMPTS
                        + " attempts ("
                        + (kernelChooses() ? "ports of the kernel's choice" : "ports " + low + "-" + (high - 1))
                        + ")",
                last);
    }

    /** A candidate port whose {@code span - 1} successors are in the range too; 0 for the kernel's choice. */
    private int draw(int span) {
        if (kernelChooses()) {
            return 0;
        }
        return ThreadLocalRandom.current().nextInt(low, high - span + 1);
    }

    private static int hold(List<ServerSocket> held, int port) throws IOException {
        ServerSocket socket = new ServerSocket();
        held.add(socket);
        socket.bind(new InetSocketAddress(port));
        return socket.getLocalPort();
    }
}
