package io.eve.mixer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConflictKeysTest {
    @Test
    void shouldConflictOnWriteWriteOverlap() {
        assertThat(ConflictKeys.writing("a").conflictsWith(ConflictKeys.writing("b", "a")))
                .isTrue();
    }

    @Test
    void shouldConflictOnReadWriteOverlapInEitherDirection() {
        ConflictKeys reader = ConflictKeys.reading("a");
        ConflictKeys writer = ConflictKeys.writing("a");

        assertThat(reader.conflictsWith(writer)).isTrue();
        assertThat(writer.conflictsWith(reader)).isTrue();
    }

    @Test
    void shouldNotConflictOnReadReadOverlap() {
        assertThat(ConflictKeys.reading("a", "b").conflictsWith(ConflictKeys.reading("a")))
                .isFalse();
    }

    @Test
    void shouldNotConflictOnDisjointKeys() {
        ConflictKeys one = ConflictKeys.reading("a").andWriting("b");
        ConflictKeys other = ConflictKeys.reading("c").andWriting("d");

        assertThat(one.conflictsWith(other)).isFalse();
        assertThat(ConflictKeys.none().conflictsWith(one)).isFalse();
    }

    @Test
    void shouldTreatEqualKeysOfAnyTypeAsTheSameKey() {
        ConflictKeys byRecord = ConflictKeys.writing(new Table("item"));
        ConflictKeys byEqualRecord = ConflictKeys.reading(new Table("item"));

        assertThat(byRecord.conflictsWith(byEqualRecord)).isTrue();
        assertThat(byRecord.conflictsWith(ConflictKeys.reading("item"))).isFalse();
    }

    @Test
    void shouldAccumulateKeysWhenChained() {
        ConflictKeys keys = ConflictKeys.reading("a").andReading("b").andWriting("c");

        assertThat(keys.reads()).containsExactlyInAnyOrder("a", "b");
        assertThat(keys.writes()).containsExactlyInAnyOrder("c");
    }

    @Test
    void shouldCollapseRepeatedKeysInSmallAndLargeUnions() {
        ConflictKeys small = ConflictKeys.writing("a", "a").andWriting("b", "a");
        Object[] many = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"};
        ConflictKeys large =
                ConflictKeys.reading(many).andReading("k3", "extra").andReading(many);

        assertThat(small.writes()).containsExactlyInAnyOrder("a", "b");
        assertThat(large.reads()).hasSize(11).contains("extra", "k0", "k9");
        assertThat(large).isEqualTo(ConflictKeys.of(List.of(many), List.of()).andReading("extra"));
    }

    @Test
    void shouldBeEqualWhateverTheSetImplementation() {
        Set<String> hashed = new HashSet<>(List.of("x", "y", "z"));
        List<String> listed = Arrays.asList("z", "y", "x");

        assertThat(ConflictKeys.of(hashed, Set.of())).isEqualTo(ConflictKeys.of(listed, List.of()));
    }

    @Test
    void shouldCopyTheCallersSets() {
        Set<Object> writes = new HashSet<>(Set.of("a"));
        ConflictKeys keys = new ConflictKeys(Set.of(), writes);

        writes.add("b");

        assertThat(keys.writes()).containsExactly("a");
    }

    @Test
    void shouldRejectNullKeysWithAMessageNamingTheSet() {
        assertThatThrownBy(() -> ConflictKeys.writing("a", null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("writes must not contain a null key");
        assertThatThrownBy(() -> ConflictKeys.of(Arrays.asList("a", null), List.of()))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("reads must not contain a null key");
    }

    @Test
    void shouldRejectNullSets() {
        assertThatThrownBy(() -> new ConflictKeys(null, Set.of()))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("reads must not be null");
        assertThatThrownBy(() -> ConflictKeys.of(List.of(), null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("writes must not be null");
    }

    private record Table(String name) {}
}
