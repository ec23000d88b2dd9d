package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.StateException;
import io.eve.merkle.graph.manual.ManualAccount;
import io.eve.merkle.graph.manual.ManualSubclassBase;
import io.eve.merkle.graph.tracked.LedgerAccount;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Without {@code manualTracking}, registration refuses what writes could bypass, one shape per test,
 * with a message naming the class, the field and the replicated alternative.
 */
class TrackingRegistrationTest {

    @Replicated
    static final class WithBytes extends StateObject {
        byte[] payload;
    }

    @Replicated
    static final class WithInts extends StateObject {
        int[] counts;
    }

    @Replicated
    static final class WithLongs extends StateObject {
        long[] totals;
    }

    @Replicated
    static final class WithReferenceArray extends StateObject {
        LedgerAccount[] accounts;
    }

    @Replicated
    static final class WithJdkList extends StateObject {
        ArrayList<String> names;
    }

    @Replicated
    static final class WithJdkMap extends StateObject {
        HashMap<String, Long> balances;
    }

    @Replicated
    static final class WithJdkSet extends StateObject {
        HashSet<Long> members;
    }

    @Replicated
    static final class WithForeignObject extends StateObject {
        StringBuilder journal;
    }

    @Replicated
    static final class OverUnenhancedBase extends ManualSubclassBase {
        long own;
    }

    private static void assertRefused(Class<? extends StateObject> type, String... fragments) {
        ObjectGraphState state = ObjectGraphState.builder().build();
        assertThatThrownBy(() -> state.register(type))
                .isInstanceOf(StateException.class)
                .hasMessageContainingAll(fragments);
    }

    @Test
    void shouldRefuseAClassTheBuildStepDidNotEnhance() {
        assertRefused(
                ManualAccount.class,
                ManualAccount.class.getName(),
                "was not enhanced",
                "eve-enhance build step",
                "manualTracking(true)");
    }

    @Test
    void shouldRefuseAnEnhancedClassOverAnUnenhancedSuperclass() {
        assertRefused(
                OverUnenhancedBase.class,
                ManualSubclassBase.class.getName() + ", a superclass of " + OverUnenhancedBase.class.getName(),
                "was not enhanced");
    }

    @Test
    void shouldRefuseAByteArray() {
        assertRefused(WithBytes.class, WithBytes.class.getName() + ".payload", "raw array", "ReplicatedCell<byte[]>");
    }

    @Test
    void shouldRefuseAnIntArray() {
        assertRefused(
                WithInts.class, WithInts.class.getName() + ".counts", "raw array", "ReplicatedMap<Integer, Integer>");
    }

    @Test
    void shouldRefuseALongArray() {
        assertRefused(
                WithLongs.class, WithLongs.class.getName() + ".totals", "raw array", "ReplicatedMap<Integer, Long>");
    }

    @Test
    void shouldRefuseAnArrayOfStateObjects() {
        assertRefused(
                WithReferenceArray.class,
                WithReferenceArray.class.getName() + ".accounts",
                "raw array",
                "ReplicatedMap<Integer, LedgerAccount>");
    }

    @Test
    void shouldRefuseAJdkList() {
        assertRefused(
                WithJdkList.class, WithJdkList.class.getName() + ".names", "ArrayList", "ReplicatedMap<Integer, V>");
    }

    @Test
    void shouldRefuseAJdkMap() {
        assertRefused(WithJdkMap.class, WithJdkMap.class.getName() + ".balances", "HashMap", "use a ReplicatedMap");
    }

    @Test
    void shouldRefuseAJdkSet() {
        assertRefused(WithJdkSet.class, WithJdkSet.class.getName() + ".members", "HashSet", "use a ReplicatedSet");
    }

    @Test
    void shouldRefuseAMutableForeignObject() {
        assertRefused(
                WithForeignObject.class,
                WithForeignObject.class.getName() + ".journal",
                "StringBuilder",
                "make it a @Replicated StateObject");
    }

    @Test
    void shouldAcceptArraysAndUnenhancedClassesInManualMode() {
        ObjectGraphState state = ObjectGraphState.builder().manualTracking(true).build();
        for (Class<? extends StateObject> type :
                List.of(WithBytes.class, WithReferenceArray.class, ManualAccount.class)) {
            state.register(type);
        }
        assertThat(state.sealedSeq()).isEqualTo(-1);
    }
}
