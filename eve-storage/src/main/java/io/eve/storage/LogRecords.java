package io.eve.storage;

import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.transport.wire.FrameCodec;
import io.eve.transport.wire.FrameException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The log's record format (docs/operations.md, "Files"):
 *
 * <pre>
 * int length (of type and payload) | int CRC32C(type, payload) | byte type | payload
 * batch payload: long seq | long view | byte sequential | token: long seq, 4 x 32-byte digest
 *                (state root, reply digest, previous, token digest) | int n | n bytes: the batch as an
 *                ExecuteBatch frame of the wire format (docs/protocol.md)
 * </pre>
 *
 * Stateless; any thread.
 */
final class LogRecords {
    static final byte BATCH = 1;
    /** Length and checksum. */
    static final int HEADER_BYTES = 2 * Integer.BYTES;

    private static final int TOKEN_BYTES = Long.BYTES + 4 * Digest.LENGTH;
    private static final int FIXED_PAYLOAD_BYTES = 2 * Long.BYTES + 1 + TOKEN_BYTES + Integer.BYTES;
    private static final FrameCodec FRAMES = new FrameCodec(FrameCodec.LARGEST_MAXIMUM);

    private LogRecords() {}

    /** The whole record: header, type and payload. */
    static ByteBuffer encode(LoggedBatch logged) {
        byte[] frame = FRAMES.encode(new Message.ExecuteBatch(logged.view(), 0, logged.batch(), logged.sequential()));
        int length = 1 + FIXED_PAYLOAD_BYTES + frame.length;
        ByteBuffer buffer = ByteBuffer.allocate(HEADER_BYTES + length);
        buffer.putInt(length).putInt(0).put(BATCH);
        buffer.putLong(logged.seq()).putLong(logged.view()).put((byte) (logged.sequential() ? 1 : 0));
        writeToken(buffer, logged.token());
        buffer.putInt(frame.length).put(frame);
        buffer.putInt(Integer.BYTES, checksum(buffer.array(), HEADER_BYTES, length));
        return buffer.flip();
    }

    static void writeToken(ByteBuffer buffer, Token token) {
        buffer.putLong(token.seq());
        buffer.put(token.stateRoot().toByteArray());
        buffer.put(token.replyDigest().toByteArray());
        buffer.put(token.previous().toByteArray());
        buffer.put(token.digest().toByteArray());
    }

    /** Reads a token and checks that its digest binds its fields. */
    static Token readToken(ByteBuffer buffer) {
        long seq = buffer.getLong();
        Digest root = readDigest(buffer);
        Digest replies = readDigest(buffer);
        Digest previous = readDigest(buffer);
        Digest digest = readDigest(buffer);
        Token token = Token.of(seq, root, replies, previous);
        if (!token.digest().equals(digest)) {
            throw new IllegalArgumentException("the token of batch " + seq + " does not match its digest");
        }
        return token;
    }

    private static Digest readDigest(ByteBuffer buffer) {
        byte[] bytes = new byte[Digest.LENGTH];
        buffer.get(bytes);
        return Digest.of(bytes);
    }

    static int checksum(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    /**
     * Whether a whole record with a matching checksum starts at {@code offset}: what tells a torn last write
     * (nothing valid follows) from damage in the middle of the log.
     */
    static boolean validAt(byte[] bytes, int offset, int end) {
        if (end - offset < HEADER_BYTES) {
            return false;
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, end - offset);
        int length = buffer.getInt();
        int crc = buffer.getInt();
        return length >= 1
                && length <= end - offset - HEADER_BYTES
                && checksum(bytes, offset + HEADER_BYTES, length) == crc;
    }

    /**
     * Whether a whole record with a matching checksum starts anywhere after {@code offset}: a torn last write
     * leaves none, a damaged header in the middle of the log (whose length no longer says where the next record
     * starts) does. Start-up only, on a damaged segment: it tries every offset.
     */
    static boolean anyValidAfter(byte[] bytes, int offset, int end) {
        for (int at = offset + 1; at <= end - HEADER_BYTES; at++) {
            if (validAt(bytes, at, end)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Decodes the type and payload of a record whose checksum matched.
     *
     * @throws IllegalArgumentException if they do not form a logged batch
     */
    static LoggedBatch decode(byte[] bytes, int offset, int length) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
        byte type = buffer.get();
        if (type != BATCH) {
            throw new IllegalArgumentException("unknown record type " + type);
        }
        if (length < 1 + FIXED_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("a batch record of " + length + " bytes is too short");
        }
        long seq = buffer.getLong();
        long view = buffer.getLong();
        byte sequential = buffer.get();
        Token token = readToken(buffer);
        int frameLength = buffer.getInt();
        if (frameLength != buffer.remaining()) {
            throw new IllegalArgumentException(
                    "the batch frame is said to be " + frameLength + " bytes, " + buffer.remaining() + " remain");
        }
        Message message;
        try {
            message = FRAMES.decode(bytes, buffer.position(), frameLength);
        } catch (FrameException e) {
            throw new IllegalArgumentException("the batch frame does not decode: " + e.getMessage(), e);
        }
        if (!(message instanceof Message.ExecuteBatch execute)
                || execute.batch().seq() != seq
                || execute.view() != view
                || execute.sequential() != (sequential == 1)
                || token.seq() != seq) {
            throw new IllegalArgumentException("the record's fields disagree with its batch frame (batch " + seq + ")");
        }
        return new LoggedBatch(view, execute.sequential(), execute.batch(), token);
    }
}
