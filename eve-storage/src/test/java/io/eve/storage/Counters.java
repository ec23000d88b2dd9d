package io.eve.storage;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.Request;
import io.eve.batch.Batch;
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

/** A test application: "k:n" adds n to counter k. Stages of it, and batches for them. */
final class Counters implements Application {
    final ObjectGraphState state = ObjectGraphState.builder().build();
    final ReplicatedMap<Long, Long> counters = new ReplicatedMap<>();

    Counters() {
        state.setRoot("counters", counters);
    }

    @Override
    public VersionedState state() {
        return state;
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        return ConflictKeys.writing(Long.parseLong(new String(payload, StandardCharsets.UTF_8).split(":")[0]));
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) {
        String[] parts = new String(payload, StandardCharsets.UTF_8).split(":");
        long key = Long.parseLong(parts[0]);
        Long before = counters.get(key);
        long value = (before == null ? 0 : before) + Long.parseLong(parts[1]);
        counters.put(key, value);
        return Long.toString(value).getBytes(StandardCharsets.UTF_8);
    }

    static final ExecutorService EXECUTOR = Executors.newFixedThreadPool(2, runnable -> {
        Thread thread = new Thread(runnable, "counters-test");
        thread.setDaemon(true);
        return thread;
    });

    static ExecutionStage newStage() {
        return new ExecutionStage(new Counters(), KeyConflictMixer.unbounded(), EXECUTOR);
    }

    /** Batch {@code seq}: three adds to keys derived from seq, from clients 1000 to 1002. */
    static Batch batch(long seq, int keys) {
        List<Request> list = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            byte[] payload = ((seq * 7 + i) % keys + ":" + (i + 1)).getBytes(StandardCharsets.UTF_8);
            list.add(new Request(1000 + i, seq, payload));
        }
        return new Batch(seq, 1_000 + seq, seq * 31, list);
    }

    /** Batch {@code seq}: {@code keys} adds, one to each counter (a large change). */
    static Batch fill(long seq, int keys) {
        List<Request> list = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            list.add(new Request(5000 + i, seq, (i + ":1").getBytes(StandardCharsets.UTF_8)));
        }
        return new Batch(seq, 1_000 + seq, seq * 31, list);
    }

    /** Executes batches {@code from..to} on {@code stage}, marks each stable, and returns them as logged. */
    static List<LoggedBatch> run(ExecutionStage stage, long from, long to, int keys) {
        List<LoggedBatch> logged = new ArrayList<>();
        for (long seq = from; seq <= to; seq++) {
            Batch batch = batch(seq, keys);
            logged.add(
                    new LoggedBatch(1, false, batch, stage.execute(batch, false).token()));
            stage.markStable(seq);
        }
        return logged;
    }
}
