package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Review: any corruption of a delta that carries collections, cells and plain objects is either applied
 * or rejected as a value, never thrown, and a rejection leaves the receiver exactly as it was.
 */
class ReviewHostileDeltaTest {

    private static ObjectGraphState newState() {
        return ObjectGraphState.builder()
                .manualTracking(true)
                .gcInterval(1)
                .register(Account.class, Bank.class, Directory.class)
                .build();
    }

    /** Version 0 of a directory and a bank; both replicas start here. */
    private static ObjectGraphState atZero() {
        ObjectGraphState state = newState();
        Directory directory = Directory.create();
        for (int i = 0; i < 40; i++) {
            directory.entries.put("k" + i, i % 3 == 0 ? (Object) ("v" + i) : (Object) (long) i);
            directory.members.add((long) i);
        }
        Bank bank = new Bank(4);
        bank.accounts[0] = new Account("a", 1);
        bank.accounts[1] = new Account("b", 2);
        state.setRoot("dir", directory);
        state.setRoot("bank", bank);
        state.seal(0);
        return state;
    }

    private static void changes(ObjectGraphState state) {
        Directory directory = state.root("dir", Directory.class);
        Bank bank = state.root("bank", Bank.class);
        directory.entries.put("k1", "changed");
        directory.entries.remove("k2");
        directory.entries.put("acct", bank.accounts[0]);
        directory.members.remove(5L);
        directory.members.add(1000L);
        directory.motto.set("bye");
        state.modify(bank);
        bank.accounts[1] = null;
        bank.accounts[2] = new Account("c", 3);
        state.seal(1);
    }

    @Property(tries = 300)
    void anyCorruptionIsRejectedAsAValueAndLeavesTheStateUnchanged(
            @ForAll int position, @ForAll byte xor, @ForAll @IntRange(min = 0, max = 2) int mode) {
        ObjectGraphState source = atZero();
        changes(source);
        StateDelta honest = source.deltaSince(0);
        byte[] bytes = honest.payload();
        int at = Math.floorMod(position, bytes.length);
        byte[] corrupted = switch (mode) {
            case 0 -> flip(bytes, at, xor);
            case 1 -> Arrays.copyOf(bytes, at);
            default -> zeroRun(bytes, at);
        };
        ObjectGraphState victim = atZero();
        Digest before = victim.rootAt(0);
        AtomicReference<ApplyResult> result = new AtomicReference<>();
        assertThatCode(() -> result.set(victim.apply(new StateDelta(0, 1, corrupted), 1, source.rootAt(1))))
                .doesNotThrowAnyException();
        if (result.get().applied()) {
            return;
        }
        assertThat(victim.sealedSeq()).isZero();
        assertThat(victim.rootAt(0)).isEqualTo(before);
        assertThatCode(() -> victim.deltaSince(0)).as("no unsealed writes left").doesNotThrowAnyException();
        ApplyResult good = victim.apply(honest, 1, source.rootAt(1));
        assertThat(good.applied()).as(good.reason()).isTrue();
    }

    private static byte[] flip(byte[] bytes, int at, byte xor) {
        byte[] copy = bytes.clone();
        copy[at] ^= xor == 0 ? 1 : xor;
        return copy;
    }

    private static byte[] zeroRun(byte[] bytes, int at) {
        byte[] copy = bytes.clone();
        Arrays.fill(copy, at, Math.min(copy.length, at + 9), (byte) 0);
        return copy;
    }
}
