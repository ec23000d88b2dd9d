package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.manual.RawBlob;
import io.eve.merkle.graph.tracked.Blob;
import org.junit.jupiter.api.Test;

class ImmutableBytesTest {
    private static final byte[] FIRST = {1, 2, 3};
    private static final byte[] SECOND = {9, 8, 7, 6};

    @Test
    void shouldCopyOnTheWayInAndOut() {
        byte[] source = FIRST.clone();
        ImmutableBytes bytes = ImmutableBytes.copyOf(source);
        source[0] = 42;
        assertThat(bytes.byteAt(0)).isEqualTo((byte) 1);
        byte[] out = bytes.toByteArray();
        out[1] = 42;
        assertThat(bytes.toByteArray()).containsExactly(FIRST);
        assertThat(bytes.length()).isEqualTo(3);
    }

    @Test
    void shouldCompareByContent() {
        assertThat(ImmutableBytes.copyOf(FIRST)).isEqualTo(ImmutableBytes.copyOf(FIRST.clone()));
        assertThat(ImmutableBytes.copyOf(FIRST)).hasSameHashCodeAs(ImmutableBytes.copyOf(FIRST.clone()));
        assertThat(ImmutableBytes.copyOf(FIRST)).isNotEqualTo(ImmutableBytes.copyOf(SECOND));
        assertThat(ImmutableBytes.copyOf(new byte[0]).length()).isZero();
    }

    @Test
    void shouldNameWhatIsWrongWithBadInput() {
        assertThatThrownBy(() -> ImmutableBytes.copyOf(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got null");
        ImmutableBytes bytes = ImmutableBytes.copyOf(FIRST);
        assertThatThrownBy(() -> bytes.byteAt(3))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("byte 3 of a 3-byte ImmutableBytes");
        assertThatThrownBy(() -> bytes.byteAt(-1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void shouldHashLikeTheByteArrayFieldItReplaces() {
        ObjectGraphState tracked = trackedState();
        ObjectGraphState manual = ObjectGraphState.builder()
                .manualTracking(true)
                .debug(true)
                .register(RawBlob.class)
                .build();
        RawBlob raw = new RawBlob(FIRST);
        manual.setRoot("blob", raw);
        assertThat(tracked.seal(0)).isEqualTo(manual.seal(0));

        inRequest(tracked, () -> tracked.root("blob", Blob.class).replace(SECOND));
        inRequest(manual, () -> raw.replace(manual, SECOND));
        assertThat(tracked.seal(1)).isEqualTo(manual.seal(1));
    }

    @Test
    void shouldTrackReplacementWithoutModifyAndRollItBack() {
        ObjectGraphState state = trackedState();
        Digest before = state.seal(0);
        inRequest(state, () -> state.root("blob", Blob.class).replace(SECOND));
        Digest after = state.seal(1);
        assertThat(after).isNotEqualTo(before);

        state.rollbackTo(0);
        Blob blob = state.root("blob", Blob.class);
        assertThat(blob.content().toByteArray()).containsExactly(FIRST);
        assertThat(blob.version()).isZero();
        assertThat(state.rootAt(0)).isEqualTo(before);

        inRequest(state, () -> state.root("blob", Blob.class).replace(SECOND));
        assertThat(state.seal(1)).isEqualTo(after);
    }

    @Test
    void shouldUndoAFailedRequestsReplacement() {
        ObjectGraphState state = trackedState();
        Digest before = state.seal(0);
        state.beginRequest();
        state.root("blob", Blob.class).replace(SECOND);
        state.abortRequest();
        assertThat(state.root("blob", Blob.class).content().toByteArray()).containsExactly(FIRST);
        assertThat(state.seal(1)).isEqualTo(before);
    }

    @Test
    void shouldTransferTheBytes() {
        ObjectGraphState source = trackedState();
        source.seal(0);
        inRequest(source, () -> source.root("blob", Blob.class).replace(SECOND));
        Digest root = source.seal(1);
        ObjectGraphState empty = ObjectGraphState.builder().register(Blob.class).build();
        ApplyResult result = empty.apply(source.deltaSince(VersionedState.NOTHING), 1, root);
        assertThat(result.applied()).as(result.reason()).isTrue();
        Blob copy = empty.root("blob", Blob.class);
        assertThat(copy.content().toByteArray()).containsExactly(SECOND);
        assertThat(copy.version()).isEqualTo(1);
    }

    private static ObjectGraphState trackedState() {
        ObjectGraphState state =
                ObjectGraphState.builder().debug(true).register(Blob.class).build();
        state.setRoot("blob", new Blob(FIRST));
        return state;
    }

    private static void inRequest(ObjectGraphState state, Runnable writes) {
        state.beginRequest();
        writes.run();
        state.endRequest();
    }
}
