package io.eve.bench.tracking;

import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.bench.tracking.manual.ExplicitKvStore;
import io.eve.execution.ExecutionStage;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.KvRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The comparison of {@link KvSampleTrackingBenchmark} in alternating rounds, for a machine whose load
 * changes while it runs: JMH measures one benchmark after the other, so a build starting halfway through
 * lands on one side only. Here each round runs the same number of batches on the tracked sample and then
 * on the explicit-marks store (the order swapping every round), and the ratio is taken per round, so both
 * sides of a ratio saw about the same load. Prints every round and the median, minimum and maximum ratio.
 *
 * <p>Arguments: {@code [rounds] [batches per round]}, default 30 and 40; the first 5 rounds warm up and are
 * not counted.
 */
public final class KvSampleTrackingRounds {
    private static final int WARM_UP_ROUNDS = 5;

    private KvSampleTrackingRounds() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? positive(args[0], "rounds") : 30;
        int batchesPerRound = args.length > 1 ? positive(args[1], "batches per round") : 40;
        ExecutorService executor = Executors.newFixedThreadPool(4);
        try {
            run(rounds, batchesPerRound, executor);
        } finally {
            executor.shutdownNow();
        }
    }

    private static void run(int rounds, int batchesPerRound, ExecutorService executor) {
        KeyValueStore tracked = KeyValueStore.builder()
                .objects(KvSampleTrackingBenchmark.OBJECTS)
                .objectSize(KvSampleTrackingBenchmark.OBJECT_SIZE)
                .workMicros(0)
                .build();
        Side trackedSide = new Side(new ExecutionStage(tracked, KeyConflictMixer.unbounded(), executor));
        Side explicitSide = new Side(new ExecutionStage(
                new ExplicitKvStore(KvSampleTrackingBenchmark.OBJECTS, KvSampleTrackingBenchmark.OBJECT_SIZE),
                KeyConflictMixer.unbounded(),
                executor));
        List<Double> ratios = new ArrayList<>();
        for (int round = 1; round <= WARM_UP_ROUNDS + rounds; round++) {
            double trackedRate;
            double explicitRate;
            if (round % 2 == 0) {
                trackedRate = trackedSide.opsPerSecond(batchesPerRound);
                explicitRate = explicitSide.opsPerSecond(batchesPerRound);
            } else {
                explicitRate = explicitSide.opsPerSecond(batchesPerRound);
                trackedRate = trackedSide.opsPerSecond(batchesPerRound);
            }
            boolean counted = round > WARM_UP_ROUNDS;
            if (counted) {
                ratios.add(trackedRate / explicitRate);
            }
            System.out.printf(
                    Locale.ROOT,
                    "round %2d%s: explicit %,9.0f ops/s, tracked %,9.0f ops/s, ratio %.3f%n",
                    round,
                    counted ? "" : " (warm-up)",
                    explicitRate,
                    trackedRate,
                    trackedRate / explicitRate);
        }
        double[] sorted =
                ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        System.out.printf(
                Locale.ROOT,
                "tracked / explicit over %d rounds: median %.3f, min %.3f, max %.3f%n",
                sorted.length,
                median(sorted),
                sorted[0],
                sorted[sorted.length - 1]);
    }

    private static double median(double[] sorted) {
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static int positive(String text, String what) {
        try {
            int value = Integer.parseInt(text);
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below with the expected form
        }
        throw new IllegalArgumentException(what + " must be a positive whole number, got \"" + text + "\"");
    }

    /** One store behind its stage, with its own batch numbers and request stream. */
    private static final class Side {
        private final ExecutionStage stage;
        private final SplittableRandom random = new SplittableRandom(42);
        private long seq;

        Side(ExecutionStage stage) {
            this.stage = stage;
        }

        double opsPerSecond(int batches) {
            long start = System.nanoTime();
            for (int i = 0; i < batches; i++) {
                seq++;
                stage.execute(batch(seq), false);
                stage.markStable(seq);
            }
            long elapsed = System.nanoTime() - start;
            return batches * (double) KvSampleTrackingBenchmark.BATCH * 1e9 / elapsed;
        }

        private Batch batch(long batchSeq) {
            List<Request> requests = new ArrayList<>(KvSampleTrackingBenchmark.BATCH);
            for (int i = 0; i < KvSampleTrackingBenchmark.BATCH; i++) {
                byte[] payload = KvRequest.encode(new KvRequest.SeededUpdate(
                        random.nextInt(KvSampleTrackingBenchmark.OBJECTS), random.nextLong()));
                requests.add(new Request(i, batchSeq, payload));
            }
            return new Batch(batchSeq, batchSeq, batchSeq, requests);
        }
    }
}
