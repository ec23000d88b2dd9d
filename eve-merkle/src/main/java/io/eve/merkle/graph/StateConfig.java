package io.eve.merkle.graph;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ForkJoinPool;

/**
 * Immutable settings of an {@link ObjectGraphState}, validated by its builder.
 *
 * @param debug rehash every object at each seal and fail, naming the object, when the incremental root
 *     differs (a forgotten {@code modify}); for tests, costs a full rehash per batch
 * @param pool the threads that hash dirty leaves and subtrees in parallel
 * @param parallelThreshold how many dirty objects a seal needs before hashing goes parallel
 * @param gcInterval a deterministic mark-and-sweep frees unreachable objects at every seal whose
 *     sequence number is a multiple of this; 0 turns collection off
 * @param classes state classes registered (and validated) up front
 * @param manualTracking accept state classes that did not go through the eve-enhance build step (and
 *     raw array fields): the application calls {@code modify} before writes, and a forgotten call is
 *     found only by {@code debug}; for tests of explicit {@code modify}
 */
public record StateConfig(
        boolean debug,
        ForkJoinPool pool,
        int parallelThreshold,
        int gcInterval,
        List<Class<? extends StateObject>> classes,
        boolean manualTracking) {

    public StateConfig {
        Objects.requireNonNull(pool, "pool");
        classes = List.copyOf(classes);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link StateConfig} or an {@link ObjectGraphState} directly. Not thread-safe. */
    public static final class Builder {
        private boolean debug;
        private ForkJoinPool pool = ForkJoinPool.commonPool();
        private int parallelThreshold = 256;
        private int gcInterval = 64;
        private final List<Class<? extends StateObject>> classes = new ArrayList<>();
        private boolean manualTracking;

        private Builder() {}

        public Builder debug(boolean debug) {
            this.debug = debug;
            return this;
        }

        public Builder pool(ForkJoinPool pool) {
            this.pool = Objects.requireNonNull(pool, "pool");
            return this;
        }

        public Builder parallelThreshold(int dirtyObjects) {
            if (dirtyObjects < 1) {
                throw new IllegalArgumentException("parallelThreshold must be at least 1, got " + dirtyObjects);
            }
            this.parallelThreshold = dirtyObjects;
            return this;
        }

        public Builder gcInterval(int batches) {
            if (batches < 0) {
                throw new IllegalArgumentException("gcInterval must be 0 (off) or a number of batches, got " + batches);
            }
            this.gcInterval = batches;
            return this;
        }

        /**
         * Accepts state classes the eve-enhance build step did not enhance, and raw array fields: every
         * write must then follow a {@code modify} call (docs/state.md, "Manual tracking"). Default false.
         */
        public Builder manualTracking(boolean manual) {
            this.manualTracking = manual;
            return this;
        }

        @SafeVarargs
        public final Builder register(Class<? extends StateObject>... types) {
            for (Class<? extends StateObject> type : types) {
                classes.add(Objects.requireNonNull(type, "state class"));
            }
            return this;
        }

        public StateConfig toConfig() {
            return new StateConfig(debug, pool, parallelThreshold, gcInterval, classes, manualTracking);
        }

        public ObjectGraphState build() {
            return new ObjectGraphState(toConfig());
        }
    }
}
