package io.eve.merkle;

/**
 * Thrown by {@code seal} in debug mode when objects changed without being marked (an unenhanced class in
 * manual tracking that skipped {@code modify}). The message names each object's id, class and changed
 * fields. The objects are already put back as the previous version had them: the caller rolls the
 * batch back and runs it again sequentially, and the seal of that run adopts the writes as if
 * {@code modify} had been called (docs/state.md, "Debug mode").
 */
public final class UntrackedWriteException extends StateException {
    private static final long serialVersionUID = 1L;

    private final long seq;

    /**
     * @param seq the batch whose seal found the writes
     * @param message the objects, their classes and changed fields
     */
    public UntrackedWriteException(long seq, String message) {
        super(message);
        this.seq = seq;
    }

    /** The batch whose seal found the writes. */
    public long seq() {
        return seq;
    }
}
