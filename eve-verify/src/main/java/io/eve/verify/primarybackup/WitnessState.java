package io.eve.verify.primarybackup;

/**
 * What the witness remembers: the view of its last grant, whether the right to commit alone is still held
 * in it ({@code solo}) or was given back (pair mode), and by which replica ({@code holder}, the primary of
 * {@code view}).
 */
public record WitnessState(long view, boolean solo, int holder) {
    public WitnessState {
        if (view < 0) {
            throw new IllegalArgumentException("the witness's view " + view + " is negative");
        }
    }
}
