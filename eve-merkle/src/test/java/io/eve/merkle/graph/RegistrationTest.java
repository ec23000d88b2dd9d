package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.StateException;
import java.util.List;
import org.junit.jupiter.api.Test;

class RegistrationTest {

    @Replicated
    static final class WithList extends StateObject {
        List<String> names;
    }

    @Replicated
    static final class WithBoxed extends StateObject {
        Integer count;
    }

    @Replicated
    static final class WithObject extends StateObject {
        Object anything;
    }

    @Replicated
    static final class NoDefaultConstructor extends StateObject {
        final long value;

        NoDefaultConstructor(long value) {
            this.value = value;
        }
    }

    static final class NotAnnotated extends StateObject {}

    @Replicated
    final class Inner extends StateObject {}

    @Replicated(name = "dup")
    static final class First extends StateObject {}

    @Replicated(name = "dup")
    static final class Second extends StateObject {}

    @Replicated
    static final class Excluded extends StateObject {
        long kept;
        transient Object cache;

        @Exclude
        Thread worker;
    }

    @Replicated
    static class Base extends StateObject {
        long zeta;
        long alpha;
    }

    @Replicated
    static final class Derived extends Base {
        long beta;
        String aardvark;
    }

    private final ObjectGraphState state =
            ObjectGraphState.builder().manualTracking(true).build();

    @Test
    void shouldRejectUnsupportedFieldTypeNamingClassFieldAndType() {
        assertThatThrownBy(() -> state.register(WithList.class))
                .isInstanceOf(StateException.class)
                .hasMessageContaining(WithList.class.getName() + ".names")
                .hasMessageContaining("java.util.List<java.lang.String>");
        assertThatThrownBy(() -> state.register(WithBoxed.class)).hasMessageContaining("java.lang.Integer");
        assertThatThrownBy(() -> state.register(WithObject.class)).hasMessageContaining("java.lang.Object");
    }

    @Test
    void shouldRejectClassesStateTransferCannotRecreate() {
        assertThatThrownBy(() -> state.register(NoDefaultConstructor.class))
                .hasMessageContaining("no-argument constructor");
        assertThatThrownBy(() -> state.register(NotAnnotated.class)).hasMessageContaining("@Replicated");
        assertThatThrownBy(() -> state.register(Inner.class)).hasMessageContaining("static nested");
    }

    @Test
    void shouldRejectTwoClassesWithOneStableName() {
        state.register(First.class);
        assertThatThrownBy(() -> state.register(Second.class)).hasMessageContaining("stable name dup");
    }

    @Test
    void shouldRejectUnsupportedClassAtSealWhenNotRegisteredAhead() {
        ObjectGraphState fresh = ObjectGraphState.builder().manualTracking(true).build();
        assertThatThrownBy(() -> fresh.setRoot("bad", new WithList())).hasMessageContaining("unsupported type");
    }

    @Test
    void shouldSkipTransientAndExcludedFields() {
        assertThat(FieldCodec.of(Excluded.class, false).fieldNames()).containsExactly("kept");
    }

    @Test
    void shouldOrderFieldsSuperclassFirstThenByName() {
        assertThat(FieldCodec.of(Derived.class, false).fieldNames())
                .containsExactly("alpha", "zeta", "aardvark", "beta");
    }
}
