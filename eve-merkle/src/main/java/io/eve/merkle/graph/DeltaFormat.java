package io.eve.merkle.graph;

/**
 * Constants of the state delta encoding (docs/state-format.md). A delta is:
 *
 * <pre>
 * int   MAGIC, byte VERSION
 * long  baseSeq, long targetSeq
 * int   tree height
 * long  next id, int free-list cursor, int free count, long[free count] free ids
 * int   root count, (string name, long id)[root count]
 * int   record count, records in id order:
 *         long id, byte kind (EMPTY | WHOLE | CHANGED),
 *         for WHOLE and CHANGED: string stable class name, then the class's own delta encoding
 * </pre>
 */
final class DeltaFormat {
    static final int MAGIC = 0x45565344;
    static final byte VERSION = 1;

    static final byte EMPTY = 0;
    static final byte WHOLE = 1;
    static final byte CHANGED = 2;

    /** The largest id a delta may name: collection uses an int-indexed bitmap. */
    static final long MAX_ID = Integer.MAX_VALUE;

    private DeltaFormat() {}
}
