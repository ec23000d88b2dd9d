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
