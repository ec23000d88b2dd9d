package io.eve.merkle.graph;

import static io.eve.merkle.graph.ObjectGraphStateTest.bank;
import static io.eve.merkle.graph.ObjectGraphStateTest.deposit;
import static io.eve.merkle.graph.ObjectGraphStateTest.newBank;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.StateException;
import io.eve.merkle.VersionedState;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A request that throws is undone by {@link VersionedState#abortRequest()}, and nothing else is. */
@Timeout(30)
class FailedRequestTest {

    static void succeeding(VersionedState state, Runnable writes) {
        state.beginRequest();
        writes.run();
        state.endRequest();
    }

    static void failing(VersionedState state, Runnable writes) {
        state.beginRequest();
        try {
            writes.run();
            throw new IllegalStateException("the request fails after its writes");
        } catch (IllegalStateException e) {
            state.abortRequest();
        }
    }

    @Test
    void shouldUndoOnlyTheFailedRequestsWritesToObjects() {
        ObjectGraphState state = newBank(10);
        ObjectGraphState reference = newBank(10);
        for (ObjectGraphState s : new ObjectGraphState[] {state, reference}) {
            succeeding(s, () -> {
                deposit(s, 1, 10);
                deposit(s, 2, 5);
            });
        }
        failing(state, () -> {
            deposit(state, 2, 7); // dirty in the batch already: a request pre-image
            deposit(state, 2, 7);
            deposit(state, 3, 1); // clean: the batch pre-image serves
            Account created = new Account("new", 1);
            state.modify(bank(state));
            bank(state).accounts[4] = created;
            bank(state).counters[0] = 9;
        });
        assertThat(bank(state).accounts[2].balance).isEqualTo(105);
        assertThat(bank(state).accounts[3].balance).isEqualTo(100);
        assertThat(bank(state).accounts[4].owner).isEqualTo("owner4");
        assertThat(bank(state).counters[0]).isZero();
        assertThat(state.seal(1)).isEqualTo(reference.seal(1));
    }

    @Test
    void shouldKeepRollbackStableVersionsAndDeltasWorkingAfterAFailedRequest() {
        ObjectGraphState state = newBank(10);
        ObjectGraphState reference = newBank(10);
        ObjectGraphState replica = newBank(10);
        succeeding(state, () -> deposit(state, 1, 10));
        failing(state, () -> {
            deposit(state, 1, 3);
            deposit(state, 5, 3);
        });
        succeeding(reference, () -> deposit(reference, 1, 10));
        Digest one = state.seal(1);
        assertThat(one).isEqualTo(reference.seal(1));
        failing(state, () -> deposit(state, 6, 1));
        Digest two = state.seal(2);
        assertThat(two).isEqualTo(one);
        state.rollbackTo(1);
        assertThat(state.rootAt(1)).isEqualTo(one);
        state.rollbackTo(0);
        assertThat(bank(state).accounts[1].balance).isEqualTo(100);
        assertThat(bank(state).accounts[5].balance).isEqualTo(100);
        succeeding(state, () -> deposit(state, 1, 10));
        assertThat(state.seal(1)).isEqualTo(one);
        state.markStable(1);
        StateDelta delta = state.deltaSince(0);
        ApplyResult applied = replica.apply(delta, 1, one);
        assertThat(applied.applied()).isTrue();
    }

    @Test
    void shouldUndoWritesToAnObjectAnEarlierRequestCreated() {
        ObjectGraphState state = newBank(10);
        ObjectGraphState reference = newBank(10);
        for (ObjectGraphState s : new ObjectGraphState[] {state, reference}) {
            succeeding(s, () -> {
                s.modify(bank(s));
                bank(s).accounts[7] = new Account("fresh", 50);
            });
        }
        failing(state, () -> {
            Account fresh = bank(state).accounts[7];
            state.modify(fresh);
            fresh.balance = 0;
            fresh.next = new Account("never placed", 1);
        });
        assertThat(bank(state).accounts[7].balance).isEqualTo(50);
        assertThat(bank(state).accounts[7].next).isNull();
        assertThat(state.seal(1)).isEqualTo(reference.seal(1));
    }

    @Test
    void shouldPutBackTheRootsAFailedRequestSet() {
        ObjectGraphState state = newBank(3);
        Digest zero = state.rootAt(0);
        failing(state, () -> {
            state.setRoot("extra", new Account("x", 1));
            state.setRoot("bank", null);
        });
        assertThat(state.rootNames()).containsExactly("bank");
        assertThat(state.seal(1)).isEqualTo(zero);
    }

    @Test
    void shouldUndoOnlyTheFailedRequestsKeysOfSharedCollections() {
        ObjectGraphState state = ReplicatedCollectionsTest.newState();
        ObjectGraphState reference = ReplicatedCollectionsTest.newState();
        for (ObjectGraphState s : new ObjectGraphState[] {state, reference}) {
            succeeding(s, () -> {
                Directory dir = ReplicatedCollectionsTest.dir(s);
                dir.entries.put("a", 1L);
                dir.entries.put("b", 2L);
                dir.members.add(5L);
            });
        }
        failing(state, () -> {
            Directory dir = ReplicatedCollectionsTest.dir(state);
            dir.entries.put("b", 22L);
            dir.entries.put("b", 23L);
            dir.entries.put("c", 3L);
            dir.entries.remove("a");
            dir.entries.put("account", new Account("never placed", 1));
            dir.members.add(6L);
            dir.members.remove(5L);
            dir.motto.set("changed");
        });
        Directory dir = ReplicatedCollectionsTest.dir(state);
        assertThat(dir.entries.keys()).containsExactlyInAnyOrder("a", "b");
        assertThat(dir.entries.get("b")).isEqualTo(2L);
        assertThat(dir.members.elements()).containsExactly(5L);
        assertThat(dir.motto.get()).isEqualTo("hello");
        assertThat(state.seal(1)).isEqualTo(reference.seal(1));
    }

    @Test
    void shouldKeepAConcurrentRequestsKeysWhenAnotherRequestOnTheSameCollectionFails() throws Exception {
        ObjectGraphState state = ReplicatedCollectionsTest.newState();
        ObjectGraphState reference = ReplicatedCollectionsTest.newState();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            // The failing request runs on another thread, open while this thread's request writes the map.
            Directory dir = ReplicatedCollectionsTest.dir(state);
            other.submit(() -> {
                        state.beginRequest();
                        dir.entries.put("failed", 1L);
                    })
                    .get();
            succeeding(state, () -> dir.entries.put("kept", 2L));
            other.submit(() -> {
                        dir.entries.put("failed too", 3L);
                        state.abortRequest();
                    })
                    .get();
        } finally {
            other.shutdown();
            assertThat(other.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        succeeding(
                reference,
                () -> ReplicatedCollectionsTest.dir(reference).entries.put("kept", 2L));
        assertThat(ReplicatedCollectionsTest.dir(state).entries.keys()).containsExactly("kept");
        assertThat(state.seal(1)).isEqualTo(reference.seal(1));
    }

    @Test
    void shouldUndoACellAndACollectionAnEarlierRequestCreated() {
        ObjectGraphState state = ReplicatedCollectionsTest.newState();
        ObjectGraphState reference = ReplicatedCollectionsTest.newState();
        for (ObjectGraphState s : new ObjectGraphState[] {state, reference}) {
            succeeding(s, () -> ReplicatedCollectionsTest.dir(s).entries.put("sub", Directory.create()));
        }
        failing(state, () -> {
            Directory sub =
                    (Directory) ReplicatedCollectionsTest.dir(state).entries.get("sub");
            sub.motto.set("changed");
            sub.entries.put("x", 1L);
            sub.members.add(1L);
        });
        Directory sub = (Directory) ReplicatedCollectionsTest.dir(state).entries.get("sub");
        assertThat(sub.motto.get()).isEqualTo("hello");
        assertThat(sub.entries.isEmpty()).isTrue();
        assertThat(sub.members.isEmpty()).isTrue();
        assertThat(state.seal(1)).isEqualTo(reference.seal(1));
    }

    @Test
    void shouldKeepTheBatchPreImageIntactWhenALaterRequestWritesARestoredArray() {
        ObjectGraphState state = newBank(3);
        Digest zero = state.rootAt(0);
        failing(state, () -> {
            state.modify(bank(state));
            bank(state).counters[1] = 5;
        });
        succeeding(state, () -> {
            state.modify(bank(state));
            bank(state).counters[1] = 6; // in place, in the array the failed request's undo put back
        });
        state.seal(1);
        state.rollbackTo(0);
        assertThat(bank(state).counters[1]).isZero();
        assertThat(state.seal(1)).isEqualTo(zero);
    }

    /** Bytes the calling thread allocates while {@code requests} requests each write one clean account. */
    private static long allocatedByRequests(boolean scoped, int requests) {
        ObjectGraphState state = newBank(requests);
        Account[] accounts = bank(state).accounts;
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (Account account : accounts) {
            if (scoped) {
                state.beginRequest();
            }
            state.modify(account);
            account.balance++;
            if (scoped) {
                state.endRequest();
            }
        }
        return threads.getCurrentThreadAllocatedBytes() - before;
    }

    @Test
    void shouldAllocateNothingMoreForRequestsThatWriteOnlyObjectsCleanInTheBatch() {
        int requests = 4096;
        for (int warm = 0; warm < 5; warm++) {
            allocatedByRequests(true, requests);
            allocatedByRequests(false, requests);
        }
        long scoped = allocatedByRequests(true, requests);
        long plain = allocatedByRequests(false, requests);
        assertThat((scoped - plain) / requests)
                .as("bytes per request added by the scope (%d scoped, %d plain)", scoped, plain)
                .isLessThan(8);
    }

    @Test
    void shouldRefuseToOpenASecondRequestOnOneThread() {
        ObjectGraphState state = newBank(1);
        state.beginRequest();
        try {
            assertThatThrownBy(state::beginRequest).isInstanceOf(StateException.class);
        } finally {
            state.endRequest();
        }
    }
}
