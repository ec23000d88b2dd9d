package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.StateDelta;
import io.eve.merkle.VersionedState;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class TransferPropertyTest {

    @Provide
    Arbitrary<List<List<BankOps.Op>>> histories() {
        return BankOps.histories();
    }

    @Property(tries = 80)
    void deltaFromAnyVersionReproducesTheRootAndKeepsWorking(
            @ForAll("histories") List<List<BankOps.Op>> history,
            @ForAll("histories") List<List<BankOps.Op>> after,
            @ForAll @IntRange(min = 0, max = 12) int cut)
            throws Exception {
        int base = Math.min(cut, history.size());
        ObjectGraphState source = BankOps.newState(false, 2);
        ObjectGraphState lagging = BankOps.newState(true, 2);
        for (int i = 0; i < history.size(); i++) {
            BankOps.runBatch(source, history.get(i), null);
            source.seal(i + 1);
            if (i < base) {
                BankOps.runBatch(lagging, history.get(i), null);
                lagging.seal(i + 1);
            }
        }
        StateDelta delta = source.deltaSince(base);
        ApplyResult result = lagging.apply(delta, history.size(), source.rootAt(history.size()));
        assertThat(result.applied()).as(result.reason()).isTrue();
        long seq = history.size() + 1;
        for (List<BankOps.Op> batch : after) {
            BankOps.runBatch(source, batch, null);
            BankOps.runBatch(lagging, batch, null);
            assertThat(lagging.seal(seq)).as("batch %d after the transfer", seq).isEqualTo(source.seal(seq));
            seq++;
        }
    }

    /**
     * docs/quorum.md, "State transfer": a replica serves the version the verifiers agreed on, not its last
     * sealed one. The delta of an older kept version must give exactly that version on the receiver, and
     * must leave the server as it was: its later versions, its next batches (sealed in debug mode, so an
     * object left rewound fails the full rehash) and a rollback to the target still agree.
     */
    @Property(tries = 80)
    void deltaToAnOlderKeptVersionIsThatVersionAndLeavesTheServerAsItWas(
            @ForAll("histories") List<List<BankOps.Op>> history,
            @ForAll("histories") List<List<BankOps.Op>> after,
            @ForAll @IntRange(min = -1, max = 12) int cut,
            @ForAll @IntRange(min = 0, max = 12) int ahead,
            @ForAll boolean rollBack)
            throws Exception {
        int size = history.size();
        long base = Math.min(cut, size);
        long target = Math.min(Math.max(base, 0) + ahead, size);
        ObjectGraphState source = BankOps.newState(true, 2);
        ObjectGraphState receiver = base == VersionedState.NOTHING
                ? ObjectGraphState.builder()
                        .manualTracking(true)
                        .debug(true)
                        .gcInterval(2)
                        .register(Account.class, Bank.class)
                        .build()
                : BankOps.newState(true, 2);
        for (int i = 0; i < size; i++) {
            BankOps.runBatch(source, history.get(i), null);
            source.seal(i + 1);
            if (i < base) {
                BankOps.runBatch(receiver, history.get(i), null);
                receiver.seal(i + 1);
            }
        }
        StateDelta delta = source.deltaSince(base, target);
        assertThat(delta.baseSeq()).isEqualTo(base);
        assertThat(delta.targetSeq()).isEqualTo(target);
        assertThat(source.sealedSeq()).isEqualTo(size);
        ApplyResult result = receiver.apply(delta, target, source.rootAt(target));
        assertThat(result.applied()).as(result.reason()).isTrue();
        for (int i = (int) target; i < size; i++) {
            BankOps.runBatch(receiver, history.get(i), null);
            assertThat(receiver.seal(i + 1))
                    .as("batch %d after the transfer", i + 1)
                    .isEqualTo(source.rootAt(i + 1));
        }
        if (rollBack) {
            source.rollbackTo(target);
            receiver.rollbackTo(target);
            assertThat(source.deltaSince(VersionedState.NOTHING).payload())
                    .isEqualTo(receiver.deltaSince(VersionedState.NOTHING).payload());
        }
        long seq = source.sealedSeq() + 1;
        for (List<BankOps.Op> batch : after) {
            BankOps.runBatch(source, batch, null);
            BankOps.runBatch(receiver, batch, null);
            assertThat(receiver.seal(seq))
                    .as("batch %d after the transfer", seq)
                    .isEqualTo(source.seal(seq));
            seq++;
        }
    }

    @Property(tries = 40)
    void fullTransferRebuildsTheStateOnAnEmptyReplica(@ForAll("histories") List<List<BankOps.Op>> history)
            throws Exception {
        ObjectGraphState source = BankOps.newState(false, 3);
        for (int i = 0; i < history.size(); i++) {
            BankOps.runBatch(source, history.get(i), null);
            source.seal(i + 1);
        }
        ObjectGraphState empty = ObjectGraphState.builder()
                .manualTracking(true)
                .debug(true)
                .register(Account.class, Bank.class)
                .build();
        ApplyResult result =
                empty.apply(source.deltaSince(VersionedState.NOTHING), history.size(), source.rootAt(history.size()));
        assertThat(result.applied()).as(result.reason()).isTrue();
        assertThat(empty.deltaSince(VersionedState.NOTHING).size())
                .isEqualTo(source.deltaSince(VersionedState.NOTHING).size());
    }

    @Property(tries = 40)
    void aRejectedDeltaLeavesTheStateExactlyAsItWas(
            @ForAll("histories") List<List<BankOps.Op>> history, @ForAll int corruptAt, @ForAll byte xor)
            throws Exception {
        ObjectGraphState source = BankOps.newState(false, 2);
        ObjectGraphState lagging = BankOps.newState(true, 2);
        for (int i = 0; i < history.size(); i++) {
            BankOps.runBatch(source, history.get(i), null);
            source.seal(i + 1);
        }
        StateDelta delta = source.deltaSince(0);
        byte[] corrupted = delta.payload();
        corrupted[Math.floorMod(corruptAt, corrupted.length)] ^= xor == 0 ? 1 : xor;
        StateDelta bad = new StateDelta(delta.baseSeq(), delta.targetSeq(), corrupted);
        var before = lagging.rootAt(0);
        ApplyResult result = lagging.apply(bad, history.size(), source.rootAt(history.size()));
        assertThat(result.applied()).isFalse();
        assertThat(lagging.sealedSeq()).isZero();
        assertThat(lagging.rootAt(0)).isEqualTo(before);
        ApplyResult good = lagging.apply(delta, history.size(), source.rootAt(history.size()));
        assertThat(good.applied()).as(good.reason()).isTrue();
    }
}
