package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.VersionedState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class ReplicatedCollectionsTest {

    static ObjectGraphState newState() {
        ObjectGraphState state = ObjectGraphState.builder()
                .manualTracking(true)
                .debug(true)
                .gcInterval(1)
                .register(Directory.class, Account.class)
                .build();
        state.setRoot("dir", Directory.create());
        state.seal(0);
        return state;
    }

    static Directory dir(ObjectGraphState state) {
        return state.root("dir", Directory.class);
    }

    @Test
    void shouldHashEqualContentsEquallyWhateverTheInsertionOrder() {
        ObjectGraphState a = newState();
        ObjectGraphState b = newState();
        for (int i = 0; i < 100; i++) {
            dir(a).entries.put("k" + i, (long) i);
        }
        a.seal(1);
        for (int i = 99; i >= 50; i--) {
            dir(b).entries.put("k" + i, (long) i);
        }
        dir(b).entries.put("k3", "temporary");
        b.seal(1);
        for (int i = 0; i < 50; i++) {
            dir(b).entries.put("k" + i, (long) i);
        }
        dir(b).entries.put("extra", 1L);
        dir(b).entries.remove("extra");
        Digest rootB = b.seal(2);
        Digest rootA = a.seal(2);
        assertThat(rootB).isEqualTo(rootA);
        assertThat(dir(b).entries.keys()).isEqualTo(dir(a).entries.keys());
    }

    @Test
    void shouldGiveTheSameRootWhenThreadsInterleaveWrites() throws Exception {
        ObjectGraphState sequential = newState();
        ObjectGraphState concurrent = newState();
        for (int i = 0; i < 2000; i++) {
            dir(sequential).entries.put("key" + i, new byte[] {(byte) i});
            dir(sequential).members.add((long) i);
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 1999 - thread; i >= 0; i -= 4) {
                        dir(concurrent).members.add((long) i);
                        dir(concurrent).entries.put("key" + i, new byte[] {(byte) i});
                    }
                }));
            }
            for (Future<?> future : futures) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(concurrent.seal(1)).isEqualTo(sequential.seal(1));
    }

    @Test
    void shouldRollBackCollectionsWithoutAnyModifyCall() {
        ObjectGraphState state = newState();
        dir(state).entries.put("a", 1L);
        dir(state).members.add(7L);
        Digest one = state.seal(1);
        dir(state).entries.put("a", 2L);
        dir(state).entries.put("b", 3L);
        dir(state).members.remove(7L);
        dir(state).motto.set("changed");
        state.seal(2);
        dir(state).entries.remove("a");
        state.rollbackTo(1);
        assertThat(dir(state).entries.get("a")).isEqualTo(1L);
        assertThat(dir(state).entries.containsKey("b")).isFalse();
        assertThat(dir(state).members.contains(7L)).isTrue();
        assertThat(dir(state).motto.get()).isEqualTo("hello");
        assertThat(state.rootAt(1)).isEqualTo(one);
        dir(state).entries.put("c", 4L);
        assertThat(state.seal(2)).isNotEqualTo(one);
    }

    @Test
    void shouldPlaceObjectsPutIntoAMapAndCollectThemWhenRemoved() {
        ObjectGraphState state = newState();
        Account account = new Account("in-map", 5);
        dir(state).entries.put("acct", account);
        state.seal(1);
        long id = state.idOf(account);
        assertThat(id).isPositive();
        state.modify(account);
        account.balance = 6;
        state.seal(2);
        dir(state).entries.remove("acct");
        state.seal(3);
        assertThat(state.idOf(account)).isZero();
        assertThat(state.objectAt(id)).isNull();
    }

    @Test
    void shouldCopyByteArraysInAndOut() {
        ObjectGraphState state = newState();
        byte[] value = {1, 2, 3};
        dir(state).entries.put("bytes", value);
        value[0] = 9;
        byte[] read = (byte[]) dir(state).entries.get("bytes");
        read[1] = 9;
        assertThat((byte[]) dir(state).entries.get("bytes")).containsExactly(1, 2, 3);
        state.seal(1);
    }

    @Test
    void shouldRejectUnsupportedKeysAndValuesByName() {
        ObjectGraphState state = newState();
        ReplicatedMap<Object, Object> raw = new ReplicatedMap<>();
        assertThatThrownBy(() -> raw.put(3.5, "x")).hasMessageContaining("java.lang.Double");
        assertThatThrownBy(() -> raw.put("k", new ArrayList<>())).hasMessageContaining("java.util.ArrayList");
        assertThatThrownBy(() -> raw.put("k", null)).hasMessageContaining("remove the key");
        assertThatCode(() -> dir(state).motto.set(null)).doesNotThrowAnyException();
    }

    @Test
    void shouldTransferOnlyTheChangedRangesOfALargeMap() {
        ObjectGraphState source = newState();
        ObjectGraphState copy = newState();
        for (ObjectGraphState state : List.of(source, copy)) {
            for (int i = 0; i < 20_000; i++) {
                dir(state).entries.put("key" + i, "value" + i);
            }
            state.seal(1);
        }
        dir(source).entries.put("key5", "new");
        dir(source).entries.remove("key6");
        dir(source).members.add(42L);
        dir(source).motto.set("moved");
        source.seal(2);
        StateDelta delta = source.deltaSince(1);
        assertThat(delta.size()).isLessThan(2_000);
        ApplyResult result = copy.apply(delta, 2, source.rootAt(2));
        assertThat(result.applied()).as(result.reason()).isTrue();
        assertThat(dir(copy).entries.get("key5")).isEqualTo("new");
        assertThat(dir(copy).entries.containsKey("key6")).isFalse();
        assertThat(dir(copy).motto.get()).isEqualTo("moved");
    }

    @Test
    void shouldTransferCollectionsWholeToAnEmptyReplica() {
        ObjectGraphState source = newState();
        Account account = new Account("ref", 1);
        dir(source).entries.put("acct", account);
        dir(source).entries.put("n", Boolean.FALSE);
        dir(source).members.add(1L);
        source.seal(1);
        ObjectGraphState empty = ObjectGraphState.builder()
                .manualTracking(true)
                .debug(true)
                .register(Directory.class, Account.class)
                .build();
        ApplyResult result = empty.apply(source.deltaSince(VersionedState.NOTHING), 1, source.rootAt(1));
        assertThat(result.applied()).as(result.reason()).isTrue();
        Account copied = (Account) dir(empty).entries.get("acct");
        assertThat(copied.owner).isEqualTo("ref");
        assertThat(dir(empty).entries.get("n")).isEqualTo(Boolean.FALSE);
        empty.modify(copied);
        copied.balance = 2;
        source.modify(account);
        account.balance = 2;
        assertThat(empty.seal(2)).isEqualTo(source.seal(2));
    }
}
