package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.StateException;
import io.eve.merkle.VersionedState;
import io.eve.merkle.codec.BufferSink;
import io.eve.merkle.tree.IdTree;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Findings of a review of eve-merkle. Tests named {@code should...} fail while the finding stands; tests
 * named {@code documents...} pass and pin a subtle guarantee or a weakness the caller must know about.
 */
class ReviewFindingsTest {

    /** A state class with a final non-array field (accepted at registration). */
    @Replicated(name = "review.Named")
    static final class Named extends StateObject {
        final String name;
        long value;

        Named() {
            this("?");
        }

        Named(String name) {
            this.name = name;
        }
    }

    @Replicated(name = "review.dup")
    static final class DupA extends StateObject {
        long a;
    }

    @Replicated(name = "review.dup")
    static final class DupB extends StateObject {
        long b;
    }

    // Offsets in a delta payload: int magic, byte version, long base, long target.
    private static final int BASE_OFFSET = 5;
    private static final int TARGET_OFFSET = 13;

    private static ObjectGraphState newState(boolean debug, int gcInterval) {
        return ObjectGraphState.builder()
                .manualTracking(true)
                .debug(debug)
                .gcInterval(gcInterval)
                .register(Account.class, Bank.class, Named.class)
                .build();
    }

    /** Version 0: a bank of {@code n} accounts with balance 100. */
    private static ObjectGraphState bankAt0(int n, int gcInterval) {
        ObjectGraphState state = newState(true, gcInterval);
        Bank bank = new Bank(n);
        for (int i = 0; i < n; i++) {
            bank.accounts[i] = new Account("owner" + i, 100);
        }
        state.setRoot("bank", bank);
        state.seal(0);
        return state;
    }

    private static Bank bank(ObjectGraphState state) {
        return state.root("bank", Bank.class);
    }

    private static void deposit(ObjectGraphState state, int account, long amount) {
        Account a = bank(state).accounts[account];
        state.modify(a);
        a.balance += amount;
    }

    private static void putLong(byte[] bytes, int offset, long value) {
        for (int i = 0; i < 8; i++) {
            bytes[offset + i] = (byte) (value >>> (56 - 8 * i));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Rollback and garbage collection

    /**
     * BUG. An object freed by the collector is unowned, so modify() on it is a no-op; if the application
     * still holds it (an @Exclude cache, a transient field) and puts it back into the state, its writes have
     * no pre-image, and rolling back past the free restores it with the later contents while the tree keeps
     * the old digest.
     */
    @Test
    void shouldRestoreAResurrectedObjectToItsContentsAtTheRollbackTarget() {
        ObjectGraphState state = bankAt0(2, 1);
        Bank bank = bank(state);
        Account kept = bank.accounts[0];
        state.modify(bank);
        bank.accounts[0] = null;
        state.seal(1);
        assertThat(state.idOf(kept)).as("collected at seal(1)").isZero();

        state.modify(kept); // no-op: unowned
        kept.balance = 999;
        state.modify(bank);
        bank.accounts[0] = kept;
        state.seal(2);

        state.rollbackTo(0);
        assertThat(bank.accounts[0]).isSameAs(kept);
        assertThat(kept.balance)
                .as("balance of the object as sealed at version 0")
                .isEqualTo(100);
    }

    /**
     * BUG. A replicated map freed by the collector writes with the "unplaced" epoch Long.MIN_VALUE + 1,
     * which its trie rejects as going backwards: the application gets an IllegalArgumentException about
     * epochs it cannot act on.
     */
    @Test
    void shouldLetTheApplicationWriteToACollectedMap() {
        ObjectGraphState state = newState(true, 1);
        ReplicatedMap<String, Integer> map = new ReplicatedMap<>();
        state.setRoot("m", map);
        state.seal(0);
        map.put("a", 1);
        state.seal(1);
        state.setRoot("m", null);
        state.seal(2);
        assertThat(state.idOf(map)).as("collected at seal(2)").isZero();
        assertThatCode(() -> map.put("b", 2)).doesNotThrowAnyException();
    }

    /** Sound: an object placed and collected in one seal is unplaced after a rollback, and ids replay alike. */
    @Test
    void documentsPlacedAndCollectedInOneSealRollsBackCleanly() {
        ObjectGraphState state = bankAt0(2, 1);
        Bank bank = bank(state);
        Account doomed = bank.accounts[1];
        state.modify(bank);
        bank.accounts[1] = null; // doomed becomes garbage
        state.modify(doomed);
        Account orphan = new Account("orphan", 5);
        doomed.next = orphan; // placed from a dirty object, collected in the same seal
        Digest one = state.seal(1);
        assertThat(state.idOf(orphan)).isZero();
        assertThat(state.idOf(doomed)).isZero();
        state.rollbackTo(0);
        assertThat(state.idOf(doomed)).isPositive();
        assertThat(doomed.next).isNull();
        assertThat(state.idOf(orphan)).isZero();
        state.modify(bank);
        bank.accounts[1] = null;
        state.modify(doomed);
        doomed.next = new Account("orphan", 5);
        assertThat(state.seal(1)).isEqualTo(one);
    }

    // ---------------------------------------------------------------------------------------------
    // Versions after a transfer

    /**
     * BUG. A transfer jumps from 0 to 3 and keeps no versions 1 and 2; rollbackTo(2) passes the range check,
     * undoes the transfer's log, then throws NullPointerException on the missing version, leaving objects at
     * version 0, the tree at version 3 and versions 3.. dropped.
     */
    @Test
    void shouldRejectRollbackToAVersionSkippedByATransferWithoutChangingAnything() {
        ObjectGraphState source = bankAt0(4, 0);
        ObjectGraphState lagging = bankAt0(4, 0);
        for (int seq = 1; seq <= 3; seq++) {
            deposit(source, seq, 10);
            source.seal(seq);
        }
        ApplyResult result = lagging.apply(source.deltaSince(0), 3, source.rootAt(3));
        assertThat(result.applied()).as(result.reason()).isTrue();

        assertThatThrownBy(() -> lagging.rollbackTo(2)).isInstanceOf(StateException.class);
        assertThat(lagging.sealedSeq()).isEqualTo(3);
        assertThat(bank(lagging).accounts[3].balance).isEqualTo(110);
        deposit(source, 0, 1);
        deposit(lagging, 0, 1);
        assertThat(lagging.seal(4)).isEqualTo(source.seal(4));
    }

    /** BUG. markStable on a version skipped by a transfer throws NullPointerException. */
    @Test
    void shouldRejectMarkStableOfAVersionSkippedByATransferWithAStateException() {
        ObjectGraphState source = bankAt0(4, 0);
        ObjectGraphState lagging = bankAt0(4, 0);
        for (int seq = 1; seq <= 3; seq++) {
            deposit(source, seq, 10);
            source.seal(seq);
        }
        assertThat(lagging.apply(source.deltaSince(0), 3, source.rootAt(3)).applied())
                .isTrue();
        assertThatThrownBy(() -> lagging.markStable(2)).isInstanceOf(StateException.class);
    }

    /** Sound: after a transfer the receiver can roll back to the base and replay to the same roots. */
    @Test
    void documentsRollbackAfterATransferThenReplayGivesTheSameRoots() {
        ObjectGraphState source = bankAt0(4, 1);
        ObjectGraphState lagging = bankAt0(4, 1);
        for (int seq = 1; seq <= 3; seq++) {
            Account fresh = new Account("fresh" + seq, seq);
            Bank bank = bank(source);
            source.modify(bank);
            bank.accounts[seq] = fresh; // frees the old account, reuses ids
            source.seal(seq);
        }
        ApplyResult result = lagging.apply(source.deltaSince(0), 3, source.rootAt(3));
        assertThat(result.applied()).as(result.reason()).isTrue();
        lagging.rollbackTo(0);
        assertThat(lagging.rootAt(0)).isEqualTo(source.rootAt(0));
        for (int seq = 1; seq <= 3; seq++) {
            Bank bank = bank(lagging);
            lagging.modify(bank);
            bank.accounts[seq] = new Account("fresh" + seq, seq);
            assertThat(lagging.seal(seq)).as("replayed batch %d", seq).isEqualTo(source.rootAt(seq));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Hostile deltas

    /**
     * BUG. A collection range holding a NULL value decodes fine, then CanonicalTrie.replaceRange throws
     * NullPointerException, which DeltaReader does not catch: apply throws instead of rejecting, and leaves
     * the batch half installed (pre-images logged, tree written, "unsealed writes").
     */
    @Test
    void shouldRejectACollectionDeltaWithANullValueAndLeaveTheStateUnchanged() {
        BufferSink sink = new BufferSink(128);
        sink.putInt(DeltaFormat.MAGIC);
        sink.putByte(DeltaFormat.VERSION);
        sink.putLong(VersionedState.NOTHING);
        sink.putLong(0);
        sink.putInt(1); // height
        sink.putLong(2); // next id
        sink.putInt(0); // cursor
        sink.putInt(0); // free ids
        sink.putInt(1); // roots
        sink.putString("m");
        sink.putLong(1);
        sink.putInt(1); // records
        sink.putLong(1);
        sink.putByte(DeltaFormat.WHOLE);
        sink.putString(ReplicatedMap.NAME);
        sink.putInt(1); // ranges
        sink.putLong(0);
        sink.putInt(0);
        sink.putInt(1); // entries
        sink.putByte(CanonicalValues.STRING);
        sink.putString("k");
        sink.putBoolean(true); // value present (format of commit 042ab31)
        sink.putByte(CanonicalValues.NULL);
        StateDelta hostile = new StateDelta(VersionedState.NOTHING, 0, sink.toByteArray());

        ObjectGraphState victim = newState(false, 1);
        AtomicReference<ApplyResult> result = new AtomicReference<>();
        assertThatCode(() -> result.set(victim.apply(hostile, 0, Digest.ZERO))).doesNotThrowAnyException();
        assertThat(result.get().applied()).isFalse();
        assertThat(victim.sealedSeq()).isEqualTo(VersionedState.NOTHING);
        assertThatCode(() -> victim.deltaSince(VersionedState.NOTHING)).doesNotThrowAnyException();
    }

    /**
     * BUG. StateDelta allows targetSeq == baseSeq. Applying such a delta installs with epoch == the sealed
     * version (the tree copies nothing, so the sealed snapshot's nodes are written in place), then
     * commitVersion(target) overwrites the base version; the rejection's rollbackTo(base) "restores" the
     * hostile version. The result says rejected, yet the state holds the attacker's contents.
     */
    @Test
    void shouldLeaveTheStateUntouchedWhenADeltaFromAVersionToItselfIsRejected() {
        ObjectGraphState victim = bankAt0(4, 0);
        deposit(victim, 1, 10);
        Digest one = victim.seal(1);
        ObjectGraphState attacker = bankAt0(4, 0);
        deposit(attacker, 1, 10);
        attacker.seal(1);
        deposit(attacker, 2, 500);
        attacker.seal(2);
        byte[] payload = attacker.deltaSince(1).payload();
        putLong(payload, TARGET_OFFSET, 1);

        ApplyResult result = victim.apply(new StateDelta(1, 1, payload), 1, Digest.ZERO);

        assertThat(result.applied()).isFalse();
        assertThat(victim.rootAt(1)).isEqualTo(one);
        assertThat(bank(victim).accounts[2].balance).isEqualTo(100);
    }

    /**
     * Was a weakness: the root digest does not cover the version number, so apply() now takes the version
     * the verifiers agreed on and refuses a relayed delta whose target number was rewritten.
     */
    @Test
    void shouldRejectADeltaWhoseTargetIsNotTheAgreedVersion() {
        ObjectGraphState source = bankAt0(4, 0);
        deposit(source, 1, 10);
        source.seal(1);
        ObjectGraphState lagging = bankAt0(4, 0);
        byte[] payload = source.deltaSince(0).payload();
        putLong(payload, TARGET_OFFSET, 1000);
        ApplyResult result = lagging.apply(new StateDelta(0, 1000, payload), 1, source.rootAt(1));
        assertThat(result.applied()).isFalse();
        assertThat(result.reason()).contains("1000");
        assertThat(lagging.sealedSeq()).isZero();
        assertThat(BASE_OFFSET).isLessThan(TARGET_OFFSET);
    }

    /** Sound: a delta since a version at which an id was later freed and reused ships the new object whole. */
    @Test
    void documentsDeltaAcrossFreeAndIdReuse() {
        ObjectGraphState source = bankAt0(2, 1);
        ObjectGraphState lagging = bankAt0(2, 1);
        Bank bank = bank(source);
        long reusedId = source.idOf(bank.accounts[1]);
        source.modify(bank);
        bank.accounts[1] = null;
        source.seal(1);
        source.modify(bank);
        bank.accounts[1] = new Account("reused", 7);
        source.seal(2);
        assertThat(source.idOf(bank.accounts[1])).isEqualTo(reusedId);
        Account old = bank(lagging).accounts[1];
        ApplyResult result = lagging.apply(source.deltaSince(0), 2, source.rootAt(2));
        assertThat(result.applied()).as(result.reason()).isTrue();
        assertThat(bank(lagging).accounts[1]).isNotSameAs(old);
        assertThat(bank(lagging).accounts[1].owner).isEqualTo("reused");
        assertThat(lagging.objectAt(reusedId)).isSameAs(bank(lagging).accounts[1]);
        lagging.rollbackTo(0);
        assertThat(bank(lagging).accounts[1]).isSameAs(old);
        assertThat(lagging.objectAt(reusedId)).isSameAs(old);
    }

    // ---------------------------------------------------------------------------------------------
    // Field handling

    /**
     * BUG. A final non-array field is accepted at registration, but FieldSlot.install refuses to set it, so
     * every transfer that carries such an object whole is rejected ("final field name cannot take the
     * transferred value", naming neither class nor remedy): a lagging replica can never catch up.
     */
    @Test
    void shouldTransferObjectsWithFinalFields() {
        ObjectGraphState source = newState(true, 1);
        source.setRoot("n", new Named("alice"));
        source.seal(0);
        ObjectGraphState empty = newState(true, 1);
        ApplyResult result = empty.apply(source.deltaSince(VersionedState.NOTHING), 0, source.rootAt(0));
        assertThat(result.applied()).as(result.reason()).isTrue();
        assertThat(empty.root("n", Named.class).name).isEqualTo("alice");
    }

    /** WEAKNESS. The clash message names one of the two classes ("... and another"). */
    @Test
    void shouldNameBothClassesThatShareAStableName() {
        ObjectGraphState state = ObjectGraphState.builder().manualTracking(true).build();
        state.register(DupA.class);
        assertThatThrownBy(() -> state.register(DupB.class))
                .hasMessageContaining(DupA.class.getName())
                .hasMessageContaining(DupB.class.getName());
    }

    // ---------------------------------------------------------------------------------------------
    // Concurrency

    /**
     * BUG (deadlock). Thread A is inside map.put (holding the map's monitor) when thread B's explicit
     * modify(map) wins the CAS: B then blocks in capture() on the monitor, while A's modify spins on
     * generation == -current forever. The interleaving is forced by holding the monitor the way putEntry
     * does. The test breaks the deadlock afterwards so that no thread keeps spinning.
     */
    @Test
    void shouldNotDeadlockWhenTheApplicationCallsModifyOnACollection() throws Exception {
        ObjectGraphState state = newState(false, 0);
        ReplicatedMap<String, Integer> map = new ReplicatedMap<>();
        state.setRoot("m", map);
        state.seal(0);
        CountDownLatch aHoldsLock = new CountDownLatch(1);
        CountDownLatch bWonCas = new CountDownLatch(1);
        Thread a = new Thread(() -> {
            synchronized (map) {
                aHoldsLock.countDown();
                try {
                    bWonCas.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                map.put("k", 1);
            }
        });
        Thread b = new Thread(() -> {
            try {
                aHoldsLock.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            state.modify(map);
        });
        a.setDaemon(true);
        b.setDaemon(true);
        a.start();
        b.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (map.generation >= 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        bWonCas.countDown();
        a.join(2000);
        boolean deadlocked = a.isAlive();
        if (deadlocked) {
            map.generation = -map.generation; // release A's spin; B then captures and finishes
        }
        a.join(5000);
        b.join(5000);
        assertThat(deadlocked).as("modify(map) against map.put deadlocked").isFalse();
    }

    // ---------------------------------------------------------------------------------------------
    // IdTree epochs

    /**
     * WEAKNESS. IdTree.restore documents "later writes must use an epoch above every epoch in that
     * version" but does not enforce it (CanonicalTrie does): a write with the snapshot's own epoch edits the
     * snapshot in place. This is the mechanism behind the base == target delta finding.
     */
    @Test
    void shouldRejectAWriteThatWouldEditASnapshotInPlace() {
        IdTree<String> tree = new IdTree<>(null, 1 << 20);
        byte[] digest = new byte[Digest.LENGTH];
        digest[0] = 1;
        tree.set(1, "one", digest, 1);
        IdTree.Snapshot one = tree.snapshot();
        byte[] other = new byte[Digest.LENGTH];
        other[0] = 2;
        Throwable thrown = null;
        try {
            tree.set(1, "changed", other, 1);
        } catch (IllegalArgumentException | IllegalStateException e) {
            thrown = e;
        }
        tree.restore(one);
        assertThat(tree.get(1)).as("value in the restored snapshot").isEqualTo("one");
        assertThat(thrown).as("a write in a sealed epoch is rejected").isNotNull();
    }

    /** Sound: reusing an epoch after restoring an older snapshot leaves the discarded later snapshot intact. */
    @Test
    void documentsEpochReuseAfterRestoreKeepsOtherSnapshotsIntact() {
        IdTree<String> tree = new IdTree<>(null, 1 << 20);
        byte[] digest = new byte[Digest.LENGTH];
        for (int id = 0; id < 40; id++) {
            digest[0] = (byte) id;
            tree.set(id, "v" + id, digest, 1);
        }
        IdTree.Snapshot one = tree.snapshot();
        digest[1] = 9;
        tree.set(3, "two", digest, 2);
        IdTree.Snapshot two = tree.snapshot();
        tree.restore(one);
        digest[1] = 10;
        tree.set(3, "two-again", digest, 2);
        tree.set(300, "grown", digest, 2);
        tree.snapshot();
        tree.restore(two);
        assertThat(tree.get(3)).isEqualTo("two");
        assertThat(tree.get(300)).isNull();
        assertThat(tree.recomputeFromScratch()).isEqualTo(two.rootDigest());
        tree.restore(one);
        assertThat(tree.recomputeFromScratch()).isEqualTo(one.rootDigest());
    }

    // ---------------------------------------------------------------------------------------------
    // Digest

    /** NIT. Digest.of(source, offset) pads with zeros past the end of {@code source} instead of failing. */
    @Test
    void shouldRejectADigestReadPastTheEndOfItsSource() {
        assertThatThrownBy(() -> Digest.of(new byte[40], 20)).isInstanceOf(RuntimeException.class);
    }
}
