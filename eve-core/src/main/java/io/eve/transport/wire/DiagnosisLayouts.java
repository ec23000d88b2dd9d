package io.eve.transport.wire;

import io.eve.merkle.Digest;
import io.eve.merkle.ObjectDigest;
import io.eve.protocol.Message;
import io.eve.protocol.Message.ObjectDigests;
import io.eve.transport.wire.FrameException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The body layout of {@link ObjectDigests} (docs/protocol.md, "Wire format"; docs/state.md, "Diagnosing a batch
 * that still differs"). The entry count and every name length are checked against their limits before
 * anything is read into memory, and the names must be well-formed UTF-8.
 */
final class DiagnosisLayouts {
    private DiagnosisLayouts() {}

    static final QuorumLayouts.Layout OBJECT_DIGESTS = new QuorumLayouts.Layout() {
        @Override
        public long bodySize(Message message) {
            long size = 3L * Long.BYTES + 2 * Integer.BYTES;
            for (ObjectDigest entry : ((ObjectDigests) message).entries()) {
                size += ObjectDigests.ENTRY_FIXED_BYTES
                        + utf8(entry.stableName()).length
                        + utf8(entry.className()).length;
            }
            return size;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            ObjectDigests digests = (ObjectDigests) message;
            out.putLong(digests.view());
            out.putLong(digests.epoch());
            out.putLong(digests.seq());
            out.putInt(digests.omitted());
            out.putInt(digests.entries().size());
            for (ObjectDigest entry : digests.entries()) {
                out.putLong(entry.id());
                out.putBytes(utf8(entry.stableName()));
                out.putBytes(utf8(entry.className()));
                out.putDigest(entry.digest());
            }
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            long epoch = in.getLong("epoch");
            long seq = in.getLong("batch number");
            int omitted = in.getInt("omitted count");
            int count = in.getCount(ObjectDigests.ENTRY_FIXED_BYTES, "object digest count");
            if (count > ObjectDigests.MAX_ENTRIES) {
                throw new FrameException(
                        Reason.INVALID_VALUE,
                        "object digest count " + count + " exceeds the limit of " + ObjectDigests.MAX_ENTRIES);
            }
            List<RawEntry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                entries.add(new RawEntry(
                        in.getLong("object id"),
                        in.getBytes("stable name", ObjectDigests.MAX_NAME_BYTES),
                        in.getBytes("class name", ObjectDigests.MAX_NAME_BYTES),
                        in.getDigest("object digest")));
            }
            return () -> {
                List<ObjectDigest> values = new ArrayList<>(entries.size());
                for (RawEntry entry : entries) {
                    values.add(new ObjectDigest(
                            entry.id(), text(entry.stableName()), text(entry.className()), entry.digest()));
                }
                return new ObjectDigests(view, epoch, seq, values, omitted);
            };
        }
    };

    private record RawEntry(long id, byte[] stableName, byte[] className, Digest digest) {}

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Strict UTF-8: a malformed name is an invalid frame, not a string with replacement characters. */
    private static String text(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("a name is not well-formed UTF-8", e);
        }
    }
}
