package io.eve.samples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.merkle.ApplyResult;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class KeyValueStoreTest {
    private static final int OBJECTS = 64;
    private static final int SIZE = 32;

    private final List<ExecutorService> pools = new ArrayList<>();

    @AfterEach
    void stopPools() {
        pools.forEach(ExecutorService::shutdownNow);
    }

    @Test
    void shouldReachEqualTokensOnTwoReplicasExecutingTheSameBatches() {
        ExecutionStage first = newStage(newStore(WorkKind.CPU, 20));
        ExecutionStage second = newStage(newStore(WorkKind.CPU, 20));
        SplittableRandom random = new SplittableRandom(42);
        for (long seq = 1; seq <= 20; seq++) {
            Batch batch = randomBatch(seq, 24, random);
            Executed a = first.execute(batch, false);
            Executed b = second.execute(batch, false);
            assertThat(a.token()).as("batch %d", seq).isEqualTo(b.token());
            assertThat(a.replies()).isEqualTo(b.replies());
            assertThat(a.replies()).noneMatch(Reply::error);
        }
    }

    @Test
    void shouldAgreeWhenTheWorkBlocks() {
        ExecutionStage first = newStage(newStore(WorkKind.BLOCKING, 200));
        ExecutionStage second = newStage(newStore(WorkKind.BLOCKING, 200));
        SplittableRandom random = new SplittableRandom(7);
        for (long seq = 1; seq <= 5; seq++) {
            Batch batch = randomBatch(seq, 16, random);
            assertThat(first.execute(batch, false).token())
                    .isEqualTo(second.execute(batch, false).token());
        }
    }

    @Test
    void shouldReadWhatTheLastUpdateWrote() {
        ExecutionStage stage = newStage(newStore(WorkKind.CPU, 0));
        byte[] value = filled((byte) 5);
        byte[] other = filled((byte) 6);
        Executed updates = stage.execute(
                batch(1, update(3, value), new KvRequest.Read(3), update(3, other), new KvRequest.Read(3)), false);
        // One client per request: the exact mixer orders the four by their conflicts on object 3 alone.
        assertThat(KeyValueStore.versionOf(updates.replies().get(0).payload())).isEqualTo(1);
        assertThat(updates.replies().get(1).payload()).isEqualTo(value);
        assertThat(KeyValueStore.versionOf(updates.replies().get(2).payload())).isEqualTo(2);
        assertThat(updates.replies().get(3).payload()).isEqualTo(other);

        Executed read = stage.execute(batch(2, new KvRequest.Read(3), new KvRequest.Read(4)), false);
        assertThat(read.replies().get(0).payload()).isEqualTo(other);
        assertThat(read.replies().get(1).payload()).hasSize(SIZE).isNotEqualTo(other);
    }

    @Test
    void shouldWriteTheSameSeededContentOnEveryReplica() {
        ExecutionStage first = newStage(newStore(WorkKind.CPU, 0));
        ExecutionStage second = newStage(newStore(WorkKind.CPU, 0));
        Batch batch = batch(1, new KvRequest.SeededUpdate(1, 99), new KvRequest.SeededUpdate(2, 99));
        assertThat(first.execute(batch, false).token())
                .isEqualTo(second.execute(batch, false).token());
        Batch reads = batch(2, new KvRequest.Read(1), new KvRequest.Read(2));
        List<Reply> a = first.execute(reads, false).replies();
        assertThat(a).isEqualTo(second.execute(reads, false).replies());
        // Same seed, different positions in the batch: the request's random source tells them apart.
        assertThat(a.get(0).payload()).isNotEqualTo(a.get(1).payload());
    }

    @Test
    void shouldAnswerBadRequestsWithTheSameErrorRepliesAndKeepGoing() {
        ExecutionStage first = newStage(newStore(WorkKind.CPU, 0));
        ExecutionStage second = newStage(newStore(WorkKind.CPU, 0));
        List<byte[]> payloads = List.of(
                new byte[0],
                new byte[] {42},
                KvRequest.encode(new KvRequest.Read(OBJECTS)),
                KvRequest.encode(new KvRequest.Update(0, new byte[SIZE - 1])),
                KvRequest.encode(new KvRequest.Update(0, filled((byte) 1))));
        Batch bad = new Batch(1, 1_000L, 11L, requests(payloads));
        Executed a = first.execute(bad, false);
        Executed b = second.execute(bad, false);
        assertThat(a.token()).isEqualTo(b.token());
        assertThat(a.replies()).isEqualTo(b.replies());
        assertThat(a.replies()).extracting(Reply::error).containsExactly(true, true, true, true, false);
        assertThat(a.replies().get(0).errorText()).contains("IllegalArgumentException", "empty payload");
        assertThat(a.replies().get(1).errorText()).contains("unknown operation 42");
        assertThat(a.replies().get(2).errorText()).contains("no object " + OBJECTS);
        assertThat(a.replies().get(3).errorText()).contains("carries " + (SIZE - 1) + " bytes");

        Batch next = batch(2, new KvRequest.Read(0));
        assertThat(first.execute(next, false).replies().get(0).payload()).isEqualTo(filled((byte) 1));
        assertThat(second.execute(next, false).token()).isEqualTo(first.lastToken());
    }

    @Test
    void shouldRestoreTheObjectsOnRollback() {
        ExecutionStage stage = newStage(newStore(WorkKind.CPU, 0));
        stage.execute(batch(1, update(0, filled((byte) 1))), false);
        stage.execute(batch(2, update(0, filled((byte) 2))), false);
        stage.rollbackTo(1);
        Executed read = stage.execute(batch(2, new KvRequest.Read(0)), false);
        assertThat(read.replies().get(0).payload()).isEqualTo(filled((byte) 1));
    }

    /**
     * The store's classes register without manual tracking (enhanced, no raw arrays), and its tracked
     * state, a replicated map of objects holding ImmutableBytes, travels whole to an empty replica.
     */
    @Test
    void shouldTransferTheTrackedStateToAnEmptyReplica() {
        KeyValueStore source = newStore(WorkKind.CPU, 0);
        ExecutionStage stage = newStage(source);
        SplittableRandom random = new SplittableRandom(3);
        for (long seq = 1; seq <= 5; seq++) {
            stage.execute(randomBatch(seq, 24, random), false);
        }
        ObjectGraphState empty = ObjectGraphState.builder()
                .register(KvRoot.class, KvObject.class)
                .build();
        ApplyResult result = empty.apply(
                source.state().deltaSince(VersionedState.NOTHING),
                5,
                source.state().rootAt(5));
        assertThat(result.applied()).as(result.reason()).isTrue();
        KvRoot copied = empty.root(KeyValueStore.ROOT, KvRoot.class);
        KvRoot original = source.state().root(KeyValueStore.ROOT, KvRoot.class);
        for (long id = 0; id < OBJECTS; id++) {
            KvObject copy = copied.objects.get(id);
            KvObject object = original.objects.get(id);
            assertThat(copy).as("object %d", id).isNotSameAs(object);
            assertThat(copy.value).as("object %d", id).isEqualTo(object.value);
            assertThat(copy.version).as("object %d", id).isEqualTo(object.version);
        }
    }

    @Test
    void shouldRejectInvalidSettingsNamingTheValue() {
        assertThatThrownBy(() -> KeyValueStore.builder().objects(0).build())
                .hasMessageContaining("at least 1 object, got 0");
        assertThatThrownBy(() -> KeyValueStore.builder().objectSize(-3).build())
                .hasMessageContaining("object size of -3");
        assertThatThrownBy(() -> KeyValueStore.builder().workMicros(-1).build()).hasMessageContaining("got -1");
    }

    private KeyValueStore newStore(WorkKind kind, long workMicros) {
        return KeyValueStore.builder()
                .objects(OBJECTS)
                .objectSize(SIZE)
                .workKind(kind)
                .workMicros(workMicros)
                .debug(true)
                .build();
    }

    private ExecutionStage newStage(KeyValueStore store) {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        pools.add(pool);
        return new ExecutionStage(store, KeyConflictMixer.unbounded(), pool);
    }

    /** Reads and updates of random objects; object count and batch size make conflicts common. */
    private static Batch randomBatch(long seq, int size, SplittableRandom random) {
        List<byte[]> payloads = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            long id = random.nextInt(OBJECTS);
            int kind = random.nextInt(3);
            KvRequest request = kind == 0
                    ? new KvRequest.Read(id)
                    : kind == 1 ? update(id, randomValue(random)) : new KvRequest.SeededUpdate(id, random.nextLong());
            payloads.add(KvRequest.encode(request));
        }
        return new Batch(seq, 1_000L * seq, random.nextLong(), requests(payloads, seq));
    }

    private static Batch batch(long seq, KvRequest... requests) {
        List<byte[]> payloads = new ArrayList<>();
        for (KvRequest request : requests) {
            payloads.add(KvRequest.encode(request));
        }
        return new Batch(seq, 1_000L * seq, seq, requests(payloads, seq));
    }

    private static List<Request> requests(List<byte[]> payloads) {
        return requests(payloads, 1);
    }

    /** Client {@code i} sends the {@code i}-th payload as its request number {@code seq}. */
    private static List<Request> requests(List<byte[]> payloads, long seq) {
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < payloads.size(); i++) {
            requests.add(new Request(i, seq, payloads.get(i)));
        }
        return requests;
    }

    private static KvRequest update(long id, byte[] value) {
        return new KvRequest.Update(id, value);
    }

    private static byte[] randomValue(SplittableRandom random) {
        byte[] value = new byte[SIZE];
        random.nextBytes(value);
        return value;
    }

    private static byte[] filled(byte b) {
        byte[] value = new byte[SIZE];
        Arrays.fill(value, b);
        return value;
    }
}
