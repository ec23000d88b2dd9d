package io.eve.transport.wire;

import static io.eve.transport.wire.Frames.BODY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.execution.Token;
import io.eve.merkle.StateDelta;
import io.eve.protocol.Message;
import io.eve.protocol.Message.BatchToken;
import io.eve.protocol.Message.ClientReply;
import io.eve.protocol.Message.ClientRequest;
import io.eve.protocol.Message.Commit;
import io.eve.protocol.Message.ExecuteBatch;
import io.eve.protocol.Message.StateTransfer;
import io.eve.transport.wire.FrameException.Reason;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FrameCodecTest {
    private static final int MAX = 1 << 20;
    private final FrameCodec codec = new FrameCodec(MAX);

    @Test
    void shouldRoundTripEveryMessageType() {
        Set<MessageType> covered = EnumSet.noneOf(MessageType.class);
        for (Message message : WireMessages.samples()) {
            covered.add(MessageType.of(message));
            assertThat(codec.decode(codec.encode(message))).isEqualTo(message);
        }
        assertThat(covered).isEqualTo(EnumSet.allOf(MessageType.class));
    }

    @Test
    void shouldRoundTripEmptyPayloads() {
        List<Message> empty = List.of(
                new ClientRequest(new Request(1, 1, new byte[0])),
                new ClientReply(new Reply(1, 1, true, new byte[0])),
                new ExecuteBatch(0, 0, new Batch(1, 0, 0, List.of()), false),
                new StateTransfer(0, 0, Token.genesis(WireMessages.digest(0)), new StateDelta(-1, -1, new byte[0])));
        for (Message message : empty) {
            assertThat(codec.decode(codec.encode(message))).isEqualTo(message);
        }
    }

    @Test
    void shouldRoundTripPayloadsUpToTheMaximumFrameSize() {
        FrameCodec large = new FrameCodec(8 << 20);
        byte[] payload = new byte[(8 << 20) - 14 - 28];
        Arrays.fill(payload, (byte) 0x5a);
        Message request = new ClientRequest(new Request(Long.MAX_VALUE, Long.MAX_VALUE, payload));
        byte[] frame = large.encode(request);
        assertThat(frame).hasSize(8 << 20);
        assertThat(large.decode(frame)).isEqualTo(request);
        Message transfer = new StateTransfer(4, 5, WireMessages.token(9), new StateDelta(3, 9, new byte[3 << 20]));
        assertThat(large.decode(large.encode(transfer))).isEqualTo(transfer);
    }

    @Test
    void shouldRoundTripABatchOfManyRequests() {
        List<Request> requests = new ArrayList<>();
        for (int i = 1; i <= 20_000; i++) {
            requests.add(new Request(i % 17, i, WireMessages.utf8("op " + i)));
        }
        Message message = new ExecuteBatch(3, 1, new Batch(99, -5, Long.MIN_VALUE, requests), true);
        assertThat(codec.decode(codec.encode(message))).isEqualTo(message);
    }

    @Test
    void shouldEncodeACommitAsItsPinnedBytes() {
        // length 26 | "EVEW" | version 2 | type 6 | view 3 | seq 7 | CRC32C, computed independently of java.util.zip
        String pinned = "0000001a" + "45564557" + "02" + "06" + "0000000000000003" + "0000000000000007" + "a978128a";
        assertThat(HexFormat.of().formatHex(codec.encode(new Commit(3, 7)))).isEqualTo(pinned);
        assertThat(codec.decode(HexFormat.of().parseHex(pinned))).isEqualTo(new Commit(3, 7));
    }

    @Test
    void shouldEncodeASuspectAsItsPinnedBytes() {
        // length 18 | "EVEW" | version 2 | type 17 | view 5 | CRC32C, computed independently of java.util.zip
        String pinned = "00000012" + "45564557" + "02" + "11" + "0000000000000005" + "e4bf7d0e";
        assertThat(HexFormat.of().formatHex(codec.encode(new Message.Suspect(5))))
                .isEqualTo(pinned);
        assertThat(codec.decode(HexFormat.of().parseHex(pinned))).isEqualTo(new Message.Suspect(5));
    }

    @Test
    void shouldEncodeAFenceAnswerAsItsPinnedBytes() {
        // length 31 | "EVEW" | version 2 | type 24 | request 11 | view 3 | solo 1 | holder 1 | CRC32C, computed
        // independently of java.util.zip
        String pinned = "0000001f" + "45564557" + "02" + "18" + "000000000000000b" + "0000000000000003" + "01"
                + "00000001" + "8a33ccde";
        Message answer = new Message.FenceAnswer(11, 3, true, 1);
        assertThat(HexFormat.of().formatHex(codec.encode(answer))).isEqualTo(pinned);
        assertThat(codec.decode(HexFormat.of().parseHex(pinned))).isEqualTo(answer);
    }

    @Test
    void shouldRefuseMalformedFenceMessages() {
        byte[] request = codec.encode(new Message.FenceRequest(4, true, 9));
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withByte(request, BODY + 8, 2))))
                .hasMessage("the solo flag is 2, expected 0 or 1")
                .extracting(FrameException::reason)
                .isEqualTo(Reason.INVALID_VALUE);
        byte[] report = codec.encode(new Message.FenceReport(4, false, 9));
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withByte(report, BODY + 8, 7))))
                .hasMessage("the solo-held flag is 7, expected 0 or 1");
        for (Message message : List.of(
                new Message.FenceRequest(4, true, 9),
                new Message.FenceAnswer(9, 4, false, 0),
                new Message.FenceProbe(5),
                new Message.FenceReport(4, true, 5))) {
            byte[] frame = codec.encode(message);
            byte[] shorter = Arrays.copyOf(frame, frame.length - 1);
            System.arraycopy(frame, frame.length - 4, shorter, shorter.length - 4, 4);
            assertThat(HostileInput.refusal(codec, Frames.reseal(shorter)).reason())
                    .as("%s one byte short", message)
                    .isEqualTo(Reason.TRUNCATED_BODY);
        }
    }

    @Test
    void shouldRefuseEvidenceOfATypeThatMayNotAppearInAViewChange() {
        byte[] inner = codec.encode(new Message.Suspect(1));
        Message.ViewChange change = new Message.ViewChange(
                2, 0, 1, WireMessages.token(3), java.util.List.of(new Message.Prepare(1, 0, WireMessages.token(3))));
        byte[] frame = codec.encode(change);
        byte[] prepare = codec.encode(change.evidence().get(0));
        int at = frame.length - 4 - prepare.length;
        byte[] swapped = Arrays.copyOf(frame, at - 4 + 4 + inner.length + 4);
        java.nio.ByteBuffer.wrap(swapped).putInt(at - 4, inner.length);
        System.arraycopy(inner, 0, swapped, at, inner.length);
        assertThatThrownBy(() -> codec.decode(Frames.reseal(swapped)))
                .isInstanceOfSatisfying(
                        FrameException.class, e -> assertThat(e.reason()).isEqualTo(Reason.INVALID_VALUE))
                .hasMessageContaining("Suspect may not appear as certificate evidence");
    }

    @Test
    void shouldEncodeAClientRequestAsItsPinnedBytes() {
        // length 40 | "EVEW" | version 2 | type 1 | client 42 | number 3 | lowest unanswered 2 | payload length 2
        // | "hi" | CRC32C, computed independently of java.util.zip
        String pinned = "00000028" + "45564557" + "02" + "01" + "000000000000002a" + "0000000000000003"
                + "0000000000000002" + "00000002" + "6869" + "19f1bf7e";
        Message message = new ClientRequest(new Request(42, 3, 2, WireMessages.utf8("hi")));
        assertThat(HexFormat.of().formatHex(codec.encode(message))).isEqualTo(pinned);
        assertThat(codec.decode(HexFormat.of().parseHex(pinned))).isEqualTo(message);
    }

    @Test
    void shouldRefuseAMaximumFrameSizeOutsideItsBounds() {
        assertThatThrownBy(() -> new FrameCodec(1023))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1023");
        assertThatThrownBy(() -> new FrameCodec(FrameCodec.LARGEST_MAXIMUM + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new FrameCodec(FrameCodec.SMALLEST_MAXIMUM).maxFrameBytes()).isEqualTo(1024);
    }

    @Test
    void shouldRefuseToEncodeAMessageAboveTheMaximum() {
        FrameCodec small = new FrameCodec(1024);
        Message message = new ClientRequest(new Request(1, 1, new byte[1024 - 42 + 1]));
        assertThatThrownBy(() -> small.encode(message))
                .isInstanceOfSatisfying(
                        FrameException.class, e -> assertThat(e.reason()).isEqualTo(Reason.FRAME_TOO_LONG))
                .hasMessage("the ClientRequest frame of 1025 bytes exceeds the maximum frame size 1024");
        assertThat(small.encode(new ClientRequest(new Request(1, 1, new byte[1024 - 42]))))
                .hasSize(1024);
    }

    @Test
    void shouldRefuseAGiantLengthBeforeAnythingElse() {
        byte[] frame = Frames.withInt(codec.encode(new Commit(1, 1)), 0, 9_999_999);
        FrameException e = HostileInput.refusal(codec, frame);
        assertThat(e.reason()).isEqualTo(Reason.FRAME_TOO_LONG);
        assertThat(e)
                .hasMessage("frame length 9999999 exceeds the maximum 1048572"
                        + " (the maximum frame size 1048576 less the 4-byte length field)");
        assertThat(HostileInput.refusal(codec, Frames.withInt(frame, 0, Integer.MAX_VALUE))
                        .reason())
                .isEqualTo(Reason.FRAME_TOO_LONG);
    }

    @Test
    void shouldRefuseALengthBelowTheMinimum() {
        byte[] commit = codec.encode(new Commit(1, 1));
        assertThat(HostileInput.refusal(codec, Frames.withInt(commit, 0, 9)).reason())
                .isEqualTo(Reason.FRAME_TOO_SHORT);
        assertThat(HostileInput.refusal(codec, Frames.withInt(commit, 0, -1)))
                .hasMessage("frame length -1 is below the minimum 10 (magic, version, type and checksum)");
    }

    @Test
    void shouldRefuseBytesThatAreNotExactlyOneFrame() {
        byte[] commit = codec.encode(new Commit(1, 1));
        assertThat(HostileInput.refusal(codec, Arrays.copyOf(commit, commit.length - 1)))
                .hasMessage("the frame length says 26 bytes follow it, but 25 were given")
                .extracting(FrameException::reason)
                .isEqualTo(Reason.LENGTH_MISMATCH);
        assertThat(HostileInput.refusal(codec, Arrays.copyOf(commit, commit.length + 1))
                        .reason())
                .isEqualTo(Reason.LENGTH_MISMATCH);
        assertThat(HostileInput.refusal(codec, new byte[3]).reason()).isEqualTo(Reason.LENGTH_MISMATCH);
        assertThat(HostileInput.refusal(codec, new byte[0]).reason()).isEqualTo(Reason.LENGTH_MISMATCH);
    }

    @Test
    void shouldRefuseAForeignMagic() {
        byte[] frame = Frames.reseal(Frames.withInt(codec.encode(new Commit(1, 1)), 4, 0x47455420));
        assertThat(HostileInput.refusal(codec, frame))
                .hasMessageStartingWith("magic 0x47455420 is not Eve's 0x45564557")
                .extracting(FrameException::reason)
                .isEqualTo(Reason.BAD_MAGIC);
    }

    @Test
    void shouldRefuseAnUnknownVersion() {
        // Version 1 requests had no lowest unanswered number: an old node's frames are refused, not misread.
        byte[] frame = Frames.reseal(Frames.withByte(codec.encode(new Commit(1, 1)), 8, 1));
        assertThat(HostileInput.refusal(codec, frame))
                .hasMessage("format version 1 is not supported; this node speaks version 2")
                .extracting(FrameException::reason)
                .isEqualTo(Reason.UNSUPPORTED_VERSION);
    }

    @Test
    void shouldRefuseAnUnknownType() {
        for (int type : new int[] {0, 30, 127, 255}) {
            byte[] frame = Frames.reseal(Frames.withByte(codec.encode(new Commit(1, 1)), 9, type));
            assertThat(HostileInput.refusal(codec, frame))
                    .hasMessage("message type " + type + " is not known")
                    .extracting(FrameException::reason)
                    .isEqualTo(Reason.UNKNOWN_TYPE);
        }
    }

    @Test
    void shouldRefuseACountTheBodyCannotHoldWithoutAllocatingIt() {
        Message batch = new ExecuteBatch(1, 1, new Batch(1, 0, 0, List.of(new Request(1, 1, new byte[4]))), false);
        int countAt = BODY + 16 + 24;
        byte[] frame = Frames.reseal(Frames.withInt(codec.encode(batch), countAt, Integer.MAX_VALUE));
        FrameException e = HostileInput.refusal(codec, frame);
        assertThat(e.reason()).isEqualTo(Reason.TRUNCATED_BODY);
        assertThat(e)
                .hasMessage("request count 2147483647 at frame offset 50 needs at least 60129542116 bytes,"
                        + " but 33 remain in the body");
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withInt(codec.encode(batch), countAt, -2)))
                        .reason())
                .isEqualTo(Reason.TRUNCATED_BODY);
    }

    @Test
    void shouldRefuseAPayloadLengthBeyondTheBody() {
        byte[] request = codec.encode(new ClientRequest(new Request(1, 1, new byte[8])));
        byte[] frame = Frames.reseal(Frames.withInt(request, BODY + 24, 9));
        assertThat(HostileInput.refusal(codec, frame))
                .hasMessage(
                        "request payload length 9 at frame offset 34 needs at least 9 bytes, but 8 remain in the body")
                .extracting(FrameException::reason)
                .isEqualTo(Reason.TRUNCATED_BODY);
    }

    @Test
    void shouldRefuseABodyThatEndsInsideAField() {
        byte[] frame = Frames.frame(6, new byte[12]);
        assertThat(HostileInput.refusal(codec, frame))
                .hasMessage("the body ends at frame offset 22, inside the batch number at frame offset 18 (8 bytes)")
                .extracting(FrameException::reason)
                .isEqualTo(Reason.TRUNCATED_BODY);
    }

    @Test
    void shouldRefuseABadChecksum() {
        byte[] commit = codec.encode(new Commit(1, 1));
        byte[] frame = Frames.withByte(commit, BODY + 3, 0x40);
        FrameException e = HostileInput.refusal(codec, frame);
        assertThat(e.reason()).isEqualTo(Reason.BAD_CHECKSUM);
        assertThat(e).hasMessageStartingWith("the frame carries checksum 0x");
    }

    @Test
    void shouldRefuseTrailingBytes() {
        byte[] frame = Frames.withBodySuffix(codec.encode(new Commit(1, 1)), new byte[3]);
        assertThat(HostileInput.refusal(codec, frame))
                .hasMessage("the Commit body ends at frame offset 26, leaving 3 bytes before the checksum")
                .extracting(FrameException::reason)
                .isEqualTo(Reason.TRAILING_BYTES);
    }

    @Test
    void shouldCheckStructureBeforeTheChecksumAndTheChecksumBeforeValues() {
        byte[] request = codec.encode(new ClientRequest(new Request(1, 1, new byte[8])));
        assertThat(HostileInput.refusal(codec, Frames.withInt(request, BODY + 24, 100))
                        .reason())
                .isEqualTo(Reason.TRUNCATED_BODY);
        assertThat(HostileInput.refusal(codec, Frames.withLong(request, BODY + 8, 0))
                        .reason())
                .isEqualTo(Reason.BAD_CHECKSUM);
    }

    @Test
    void shouldRefuseRequestNumberZero() {
        byte[] request = codec.encode(new ClientRequest(new Request(1, 1, new byte[0])));
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withLong(request, BODY + 8, 0))))
                .hasMessage("the ClientRequest is invalid: request numbers start at 1, got 0")
                .extracting(FrameException::reason)
                .isEqualTo(Reason.INVALID_VALUE);
    }

    @Test
    void shouldRefuseALowestUnansweredNumberAboveTheRequestsOwn() {
        byte[] request = codec.encode(new ClientRequest(new Request(1, 4, 2, new byte[0])));
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withLong(request, BODY + 16, 5))))
                .hasMessage("the ClientRequest is invalid: the lowest unanswered request number must lie between 1"
                        + " and the request's own number 4, got 5")
                .extracting(FrameException::reason)
                .isEqualTo(Reason.INVALID_VALUE);
    }

    @Test
    void shouldRefuseBatchNumberZeroAndInvalidRequestsInsideABatch() {
        Message message = new ExecuteBatch(1, 1, new Batch(1, 0, 0, List.of(new Request(1, 1, new byte[0]))), false);
        byte[] frame = codec.encode(message);
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withLong(frame, BODY + 16, 0))))
                .hasMessage("the ExecuteBatch is invalid: batch numbers start at 1, got 0");
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withLong(frame, BODY + 16 + 28 + 8, -3)))
                        .reason())
                .isEqualTo(Reason.INVALID_VALUE);
    }

    @Test
    void shouldRefuseATokenWhoseDigestDoesNotMatchItsFields() {
        Token token = WireMessages.token(5);
        byte[] frame = codec.encode(new BatchToken(1, 1, token));
        byte[] forged = Frames.reseal(Frames.withLong(frame, BODY + 16, 6));
        FrameException e = HostileInput.refusal(codec, forged);
        assertThat(e.reason()).isEqualTo(Reason.INVALID_VALUE);
        assertThat(e)
                .hasMessageStartingWith(
                        "the token for batch 6 carries digest " + token.digest().toHex());
    }

    @Test
    void shouldRefuseADeltaThatGoesBackwards() {
        Message transfer = new StateTransfer(1, 1, WireMessages.token(5), new StateDelta(2, 5, new byte[1]));
        byte[] frame = codec.encode(transfer);
        int baseAt = BODY + 16 + ValueLayouts.TOKEN_BYTES;
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withLong(frame, baseAt, 6))))
                .hasMessage("the StateTransfer is invalid: a delta goes from a version to a later one, got 6 -> 5")
                .extracting(FrameException::reason)
                .isEqualTo(Reason.INVALID_VALUE);
    }

    @Test
    void shouldRefuseAFlagOtherThanZeroOrOne() {
        byte[] rollback = codec.encode(new Message.Rollback(1, 1, 1, true));
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withByte(rollback, BODY + 24, 2))))
                .hasMessage("the await-transfer flag is 2, expected 0 or 1")
                .extracting(FrameException::reason)
                .isEqualTo(Reason.INVALID_VALUE);
        byte[] reply = codec.encode(new ClientReply(new Reply(1, 1, false, new byte[0])));
        assertThat(HostileInput.refusal(codec, Frames.reseal(Frames.withByte(reply, BODY + 16, -1)))
                        .reason())
                .isEqualTo(Reason.INVALID_VALUE);
    }

    @Test
    void shouldSayAFrameIsIncompleteUntilItsLastByteArrives() {
        byte[] frame = codec.encode(new Commit(2, 3));
        for (int length = 0; length < frame.length; length++) {
            assertThat(codec.completeFrameLength(frame, 0, length)).isEqualTo(FrameCodec.INCOMPLETE);
            assertThat(codec.completeFrameLength(ByteBuffer.wrap(frame, 0, length)))
                    .isEqualTo(FrameCodec.INCOMPLETE);
        }
        assertThat(codec.completeFrameLength(frame, 0, frame.length)).isEqualTo(frame.length);
    }

    @Test
    void shouldFindTheFirstFrameOfSeveralWithoutMovingThePosition() {
        byte[] first = codec.encode(new Commit(2, 3));
        byte[] second = codec.encode(new ClientRequest(new Request(1, 1, new byte[100])));
        ByteBuffer buffer = ByteBuffer.allocate(7 + first.length + second.length);
        buffer.put(new byte[7]).put(first).put(second).flip().position(7);
        assertThat(codec.completeFrameLength(buffer)).isEqualTo(first.length);
        assertThat(buffer.position()).isEqualTo(7);
        buffer.position(7 + first.length);
        assertThat(codec.completeFrameLength(buffer)).isEqualTo(second.length);
    }

    @Test
    void shouldRefuseABadHeaderAsSoonAsItArrives() {
        byte[] giant = Frames.withInt(codec.encode(new Commit(2, 3)), 0, Integer.MAX_VALUE);
        assertThatThrownBy(() -> codec.completeFrameLength(giant, 0, 4))
                .isInstanceOfSatisfying(
                        FrameException.class, e -> assertThat(e.reason()).isEqualTo(Reason.FRAME_TOO_LONG));
        byte[] http = WireMessages.utf8("GET / HTTP/1.1\r\n");
        assertThatThrownBy(() -> codec.completeFrameLength(ByteBuffer.wrap(http)))
                .isInstanceOfSatisfying(
                        FrameException.class, e -> assertThat(e.reason()).isEqualTo(Reason.FRAME_TOO_LONG));
        byte[] foreign = Frames.withInt(codec.encode(new Commit(2, 3)), 4, 0x47455420);
        assertThat(codec.completeFrameLength(foreign, 0, 7)).isEqualTo(FrameCodec.INCOMPLETE);
        assertThatThrownBy(() -> codec.completeFrameLength(foreign, 0, 8))
                .isInstanceOfSatisfying(
                        FrameException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BAD_MAGIC));
        byte[] future = Frames.withByte(codec.encode(new Commit(2, 3)), 8, 9);
        assertThatThrownBy(() -> codec.completeFrameLength(future, 0, 9))
                .isInstanceOfSatisfying(
                        FrameException.class, e -> assertThat(e.reason()).isEqualTo(Reason.UNSUPPORTED_VERSION));
    }
}
