package io.eve.transport.wire;

import static io.eve.transport.wire.Frames.BODY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.Digest;
import io.eve.merkle.ObjectDigest;
import io.eve.protocol.Message.ObjectDigests;
import io.eve.transport.wire.FrameException.Reason;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Wire type 33, {@code ObjectDigests} (docs/protocol.md; docs/state.md, "Diagnosing a batch that still differs"). */
class ObjectDigestsCodecTest {
    private final FrameCodec codec = new FrameCodec(1 << 20);

    /** view, epoch, seq, omitted: where the entry count starts. */
    private static final int COUNT_AT = BODY + 3 * Long.BYTES + Integer.BYTES;
    /** The first entry's stable name length. */
    private static final int FIRST_NAME_AT = COUNT_AT + Integer.BYTES + Long.BYTES;

    private static ObjectDigests one(String stableName, String className) {
        return new ObjectDigests(
                1, 2, 3, List.of(new ObjectDigest(5, stableName, className, WireMessages.digest(1))), 0);
    }

    @Test
    void shouldRoundTripEntriesAndNames() {
        ObjectDigests message = WireMessages.objectDigests();
        byte[] frame = codec.encode(message);
        assertThat(frame[9]).isEqualTo((byte) 33);
        assertThat(codec.decode(frame)).isEqualTo(message);
        ObjectDigests empty = new ObjectDigests(0, 0, 1, List.of(), 0);
        assertThat(codec.decode(codec.encode(empty))).isEqualTo(empty);
    }

    @Test
    void shouldRefuseACountAboveTheLimitBeforeReadingEntries() {
        List<ObjectDigest> entries = new ArrayList<>();
        for (int id = 1; id <= ObjectDigests.MAX_ENTRIES; id++) {
            entries.add(new ObjectDigest(id, "", "", Digest.ZERO));
        }
        byte[] full = codec.encode(new ObjectDigests(1, 1, 1, entries, 0));
        assertThat(codec.decode(full)).isInstanceOf(ObjectDigests.class);
        byte[] padded = Frames.withBodySuffix(full, new byte[ObjectDigests.ENTRY_FIXED_BYTES]);
        FrameException e = HostileInput.refusal(codec, Frames.reseal(Frames.withInt(padded, COUNT_AT, 1025)));
        assertThat(e.reason()).isEqualTo(Reason.INVALID_VALUE);
        assertThat(e).hasMessage("object digest count 1025 exceeds the limit of 1024");
    }

    @Test
    void shouldRefuseACountTheBodyCannotHold() {
        byte[] frame = codec.encode(one("a", "b"));
        FrameException e = HostileInput.refusal(codec, Frames.reseal(Frames.withInt(frame, COUNT_AT, 2)));
        assertThat(e.reason()).isEqualTo(Reason.TRUNCATED_BODY);
        assertThat(e).hasMessageStartingWith("object digest count 2 at frame offset 38 needs at least 96 bytes");
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withInt(frame, COUNT_AT, -1)))
                        .reason())
                .isEqualTo(Reason.TRUNCATED_BODY);
    }

    @Test
    void shouldRefuseANameLongerThanTheLimitUnread() {
        String name = "n".repeat(ObjectDigests.MAX_NAME_BYTES);
        byte[] frame = codec.encode(one(name, "c"));
        byte[] longer = Frames.withBodySuffix(frame, new byte[1]);
        FrameException e = HostileInput.refusal(
                codec, Frames.reseal(Frames.withInt(longer, FIRST_NAME_AT, ObjectDigests.MAX_NAME_BYTES + 1)));
        assertThat(e.reason()).isEqualTo(Reason.INVALID_VALUE);
        assertThat(e).hasMessage("stable name length 201 at frame offset 50 exceeds the limit of 200");
    }

    @Test
    void shouldRefuseMalformedUtf8() {
        byte[] frame = codec.encode(one("ab", "c"));
        byte[] forged = Frames.reseal(Frames.withByte(frame, FIRST_NAME_AT + Integer.BYTES, 0xff));
        FrameException e = HostileInput.refusal(codec, forged);
        assertThat(e.reason()).isEqualTo(Reason.INVALID_VALUE);
        assertThat(e).hasMessageContaining("not well-formed UTF-8");
    }

    @Test
    void shouldRefuseIdsOutOfOrderOrNegativeAndInvalidNumbers() {
        ObjectDigests two = new ObjectDigests(
                1,
                1,
                4,
                List.of(
                        new ObjectDigest(3, "", "", WireMessages.digest(1)),
                        new ObjectDigest(8, "", "", WireMessages.digest(2))),
                0);
        byte[] frame = codec.encode(two);
        int secondIdAt = COUNT_AT + Integer.BYTES + ObjectDigests.ENTRY_FIXED_BYTES;
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withLong(frame, secondIdAt, 3))))
                .hasMessageContaining("object ids must increase, but 3 follows 3")
                .extracting(FrameException::reason)
                .isEqualTo(Reason.INVALID_VALUE);
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withLong(frame, COUNT_AT + Integer.BYTES, -1))))
                .hasMessageContaining("object ids are not negative");
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withLong(frame, BODY + 16, 0))))
                .hasMessageContaining("batch numbers start at 1");
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withInt(frame, BODY + 24, -3))))
                .hasMessageContaining("omitted count -3 is negative");
    }

    @Test
    void shouldRefuseEveryTruncation() {
        byte[] frame = codec.encode(WireMessages.objectDigests());
        for (int cut = BODY; cut < frame.length - 4; cut++) {
            byte[] shorter = new byte[cut + 4];
            System.arraycopy(frame, 0, shorter, 0, cut);
            assertThat(HostileInput.refusal(codec, Frames.reseal(shorter)).reason())
                    .as("cut at %d", cut)
                    .isIn(Reason.TRUNCATED_BODY, Reason.INVALID_VALUE);
        }
    }

    @Test
    void shouldCutLongNamesAtWholeCodePointsAndLeaveOutWhatDoesNotFit() {
        String name = "é".repeat(150); // 300 bytes of UTF-8
        ObjectDigests cut = ObjectDigests.of(1, 1, 2, List.of(new ObjectDigest(1, name, "C", Digest.ZERO)));
        assertThat(cut.entries().get(0).stableName()).isEqualTo("é".repeat(100));
        List<ObjectDigest> many = new ArrayList<>();
        for (int id = 1; id <= 3000; id++) {
            many.add(new ObjectDigest(id, "s", "c", Digest.ZERO));
        }
        ObjectDigests bounded = ObjectDigests.of(1, 1, 2, many);
        assertThat(bounded.entries()).hasSize(ObjectDigests.MAX_ENTRIES);
        assertThat(bounded.omitted()).isEqualTo(3000 - ObjectDigests.MAX_ENTRIES);
        List<ObjectDigest> wide = new ArrayList<>();
        for (int id = 1; id <= 1000; id++) {
            wide.add(new ObjectDigest(id, "s".repeat(150), "c".repeat(150), Digest.ZERO));
        }
        ObjectDigests budgeted = ObjectDigests.of(1, 1, 2, wide);
        assertThat(codec.encode(budgeted).length).isLessThan(ObjectDigests.BUDGET_BYTES + 64);
        assertThat(budgeted.entries().size() + budgeted.omitted()).isEqualTo(1000);
        assertThat(budgeted.entries().get(budgeted.entries().size() - 1).id())
                .isEqualTo(budgeted.entries().size());
        assertThatThrownBy(() -> new ObjectDigests(1, 1, 2, many, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
