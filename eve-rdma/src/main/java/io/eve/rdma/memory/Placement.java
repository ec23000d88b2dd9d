package io.eve.rdma.memory;

/**
 * How the in-memory fabric places one write. {@code prefix} is how many bytes land at once (the rest wait
 * for {@link InMemoryFabric#releaseDeferred()}), except for {@link Kind#CORRUPT}, where it is the index of
 * the byte whose lowest bit is flipped.
 */
public record Placement(Kind kind, int prefix) {
    public static final Placement NOW = new Placement(Kind.NOW, 0);

    /** The fates of a write. */
    public enum Kind {
        /** Placed whole, at once. */
        NOW,
        /** {@code prefix} bytes placed now, the rest later: a torn write, observable in between. */
        TEAR,
        /** Placed whole later: delayed, and so reordered after later writes. */
        DEFER,
        /** Never placed; the write fails and the path breaks (the peer stopped answering). */
        DROP,
        /** {@code prefix} bytes placed, then the writer dies: nothing of it or after it is ever placed. */
        CRASH,
        /** Placed whole at once with one bit flipped. */
        CORRUPT
    }

    public static Placement tear(int prefix) {
        return new Placement(Kind.TEAR, prefix);
    }

    public static Placement defer() {
        return new Placement(Kind.DEFER, 0);
    }

    public static Placement drop() {
        return new Placement(Kind.DROP, 0);
    }

    public static Placement crash(int prefix) {
        return new Placement(Kind.CRASH, prefix);
    }

    public static Placement corrupt(int byteIndex) {
        return new Placement(Kind.CORRUPT, byteIndex);
    }
}
