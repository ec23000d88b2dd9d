package io.eve.bench.pipeline;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.Request;
import io.eve.RequestCodec;
import io.eve.TypedApplication;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What decoding a request once saves ({@link Application#typed}): an execution stage runs batches of 64
 * orders of 32 lines each (about 450 bytes of text, parsed into records), adapted once with
 * {@code Application.typed} (decoded once, for conflict keys and execution) and once as an application
 * that decodes in both {@code conflictKeys} and {@code execute}, the way a byte-array application does;
 * {@code decodeOnly} is the decoding of one batch alone. Every order writes one shared ledger, so the batch
 * runs one request at a time on the benchmark thread and the difference is the decoding, not scheduling.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class TypedRequestBenchmark {
    static final int BATCH = 64;
    static final int LINES = 32;

    record Line(String sku, int quantity) {}

    record Order(String customer, List<Line> lines) {}

    static final RequestCodec<Order, Long> CODEC = RequestCodec.of(
            TypedRequestBenchmark::encode,
            TypedRequestBenchmark::decode,
            total -> Long.toString(total).getBytes(StandardCharsets.UTF_8),
            payload -> Long.parseLong(new String(payload, StandardCharsets.UTF_8)));

    /** Adds each order's quantities to its customer's total in one shared ledger. */
    static final class Orders implements TypedApplication<Order, Long> {
        private final ObjectGraphState state = ObjectGraphState.builder().build();
        private final ReplicatedMap<String, Long> totals = new ReplicatedMap<>();

        Orders() {
            state.setRoot("totals", totals);
        }

        @Override
        public VersionedState state() {
            return state;
        }

        @Override
        public ConflictKeys conflictKeys(Order order) {
            return ConflictKeys.writing("ledger");
        }

        @Override
        public Long execute(Order order, ExecutionContext context) {
            long quantity = 0;
            for (Line line : order.lines()) {
                quantity += line.quantity();
            }
            Long before = totals.get(order.customer());
            long total = (before == null ? 0 : before) + quantity;
            totals.put(order.customer(), total);
            return total;
        }
    }

    /** The byte-array shape: decodes in both methods and keeps the default {@link Application#prepare}. */
    static final class DecodingTwice implements Application {
        private final Application typed = Application.typed(CODEC, new Orders());

        @Override
        public VersionedState state() {
            return typed.state();
        }

        @Override
        public ConflictKeys conflictKeys(byte[] payload) {
            return typed.conflictKeys(payload);
        }

        @Override
        public byte[] execute(byte[] payload, ExecutionContext context) throws Exception {
            return typed.execute(payload, context);
        }
    }

    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final List<byte[]> payloads = new ArrayList<>();
    private ExecutionStage once;
    private ExecutionStage twice;
    private long onceSeq;
    private long twiceSeq;

    @Setup(Level.Iteration)
    public void start() {
        payloads.clear();
        for (int i = 0; i < BATCH; i++) {
            List<Line> lines = new ArrayList<>();
            for (int j = 0; j < LINES; j++) {
                lines.add(new Line(String.format("sku-%05d", (i * 131 + j * 17) % 100_000), 1 + (i + j) % 9));
            }
            payloads.add(encode(new Order("customer-" + (i % 16), lines)));
        }
        once = new ExecutionStage(Application.typed(CODEC, new Orders()), KeyConflictMixer.unbounded(), executor);
        twice = new ExecutionStage(new DecodingTwice(), KeyConflictMixer.unbounded(), executor);
        onceSeq = 0;
        twiceSeq = 0;
    }

    @TearDown
    public void stop() {
        executor.shutdownNow();
    }

    @Benchmark
    public Executed decodingOnce() {
        Executed executed = once.execute(batch(++onceSeq), false);
        once.markStable(onceSeq);
        return executed;
    }

    @Benchmark
    public Executed decodingTwice() {
        Executed executed = twice.execute(batch(++twiceSeq), false);
        twice.markStable(twiceSeq);
        return executed;
    }

    @Benchmark
    public List<Order> decodeOnly() {
        List<Order> orders = new ArrayList<>(BATCH);
        for (byte[] payload : payloads) {
            orders.add(CODEC.decodeRequest(payload));
        }
        return orders;
    }

    /** Batch {@code seq}: each client sends its request number {@code seq}, so none is a retry. */
    private Batch batch(long seq) {
        List<Request> requests = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            requests.add(new Request(i, seq, payloads.get(i)));
        }
        return new Batch(seq, seq, seq, requests);
    }

    static byte[] encode(Order order) {
        StringBuilder text =
                new StringBuilder("customer=").append(order.customer()).append(";lines=");
        for (int i = 0; i < order.lines().size(); i++) {
            Line line = order.lines().get(i);
            text.append(i == 0 ? "" : ",").append(line.sku()).append('x').append(line.quantity());
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    static Order decode(byte[] payload) {
        String[] fields = new String(payload, StandardCharsets.UTF_8).split(";");
        if (fields.length != 2 || !fields[0].startsWith("customer=") || !fields[1].startsWith("lines=")) {
            throw new IllegalArgumentException("expected customer=...;lines=..., got " + fields.length + " fields");
        }
        List<Line> lines = new ArrayList<>();
        for (String item : fields[1].substring("lines=".length()).split(",")) {
            int times = item.lastIndexOf('x');
            lines.add(new Line(item.substring(0, times), Integer.parseInt(item.substring(times + 1))));
        }
        return new Order(fields[0].substring("customer=".length()), List.copyOf(lines));
    }
}
