package io.eve.rdma;

import java.util.Locale;

/** Which transport a node uses: {@code netty}, {@code rdma} (fail if unavailable) or {@code auto}. */
public enum TransportMode {
    NETTY,
    RDMA,
    AUTO;

    /** Parses {@code netty | rdma | auto}, case-insensitively, naming the value when it is none of them. */
    public static TransportMode parse(String value) {
        for (TransportMode mode : values()) {
            if (mode.name().equalsIgnoreCase(value == null ? "" : value.trim())) {
                return mode;
            }
        }
        throw new IllegalArgumentException("transport = " + value + " is not one of netty, rdma, auto");
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
