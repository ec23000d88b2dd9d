package io.eve.rdma.ring;

/** What one look at the head of a ring found. */
public enum Poll {
    /** An entry was valid and handed over; the head moved past it. */
    DELIVERED,
    /** Nothing has been written at the head. */
    EMPTY,
    /** An entry is being placed (torn so far): look again later. */
    PENDING,
    /**
     * Sequence, length and canary are complete but the checksum does not match. A write placed out of order
     * can look like this for a moment; if it lasts, the bytes are corrupt and the path must be abandoned.
     */
    CORRUPT
}
