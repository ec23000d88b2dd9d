package io.eve.mixer.experiment;

/** Receives a pair of request positions, {@code first < second}. */
@FunctionalInterface
interface PairVisitor {
    void visit(int first, int second);
}
