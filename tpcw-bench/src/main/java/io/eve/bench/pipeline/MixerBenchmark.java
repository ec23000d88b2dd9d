package io.eve.bench.pipeline;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.ParallelBatch;
import io.eve.mixer.SequentialMixer;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The mixer's cost per request (Eve §5.1 first-fit) for batches of key-value requests, each writing one
 * random object and reading another, against the sequential mixer (one request per parallel batch, no
 * conflict analysis) in the same run.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class MixerBenchmark {
    @Param({"64", "1024"})
    int batchSize;

    @Param({"100", "10000"})
    int objects;

    private BatchKeys batch;
    private final KeyConflictMixer exact = KeyConflictMixer.unbounded();
    private final SequentialMixer sequential = new SequentialMixer();

    @Setup
    public void makeBatch() {
        SplittableRandom random = new SplittableRandom(7);
        List<ConflictKeys> requests = new ArrayList<>(batchSize);
        for (int i = 0; i < batchSize; i++) {
            requests.add(
                    ConflictKeys.writing((long) random.nextInt(objects)).andReading((long) random.nextInt(objects)));
        }
        batch = new BatchKeys(1, 42, requests);
    }

    @Benchmark
    public List<ParallelBatch> keyConflictMixer() {
        return exact.mix(batch);
    }

    @Benchmark
    public List<ParallelBatch> sequentialBaseline() {
        return sequential.mix(batch);
    }
}
