package io.eve.bench.suite;

import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.WorkKind;
import java.time.Duration;

/**
 * The settings of one measured point, the same for every mode that runs it: the key-value store's shape
 * (objects, object size, work per request), the mixer's deliberate mistakes, the execution threads, the
 * closed-loop clients and how long to warm up and measure. Validated by {@link KvSuite}; immutable.
 *
 * @param threads execution threads (ignored by modes that execute sequentially)
 * @param workMicros work per request in microseconds
 * @param workKind CPU spin or BLOCKING wait
 * @param objectSize bytes per object
 * @param objects number of objects; two updates conflict with probability {@code 1 / objects}
 * @param falseNegativeRate per-pair probability that Eve's mixer misses a conflict
 * @param falsePositiveRate per-pair probability that Eve's mixer invents a conflict
 * @param clients closed-loop clients, one request outstanding each
 * @param maxBatchSize requests per Eve batch at most
 * @param warmup time run before measuring
 * @param duration time measured
 */
public record Workload(
        int threads,
        long workMicros,
        WorkKind workKind,
        int objectSize,
        int objects,
        double falseNegativeRate,
        double falsePositiveRate,
        int clients,
        int maxBatchSize,
        Duration warmup,
        Duration duration) {

    /** A fresh store with this workload's shape (each replica gets its own). */
    public KeyValueStore newStore() {
        return KeyValueStore.builder()
                .objects(objects)
                .objectSize(objectSize)
                .workMicros(workMicros)
                .workKind(workKind)
                .build();
    }

    /** The pairwise conflict probability of two updates. */
    public double conflictProbability() {
        return 1.0 / objects;
    }

    public Workload withThreads(int threads) {
        return new Workload(
                threads,
                workMicros,
                workKind,
                objectSize,
                objects,
                falseNegativeRate,
                falsePositiveRate,
                clients,
                maxBatchSize,
                warmup,
                duration);
    }

    /** This workload with another warm-up and measured time. */
    public Workload timed(Duration warmup, Duration duration) {
        return new Workload(
                threads,
                workMicros,
                workKind,
                objectSize,
                objects,
                falseNegativeRate,
                falsePositiveRate,
                clients,
                maxBatchSize,
                warmup,
                duration);
    }

    /** A short description for progress and logs. */
    public String describe() {
        return String.format(
                "T=%d work=%dus %s size=%dB objects=%d fn=%s fp=%s",
                threads, workMicros, workKind, objectSize, objects, falseNegativeRate, falsePositiveRate);
    }
}
