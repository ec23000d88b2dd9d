package io.eve;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The layout of an {@link ApplicationError} in an error reply's payload, version 1, big-endian:
 *
 * <pre>
 * 0x00              marker: no text error starts with a NUL byte
 * 0x01              layout version
 * u8  + ASCII       code
 * u32 + UTF-8       message
 * u16 + UTF-8       exception class
 * u32 + bytes       detail
 * </pre>
 *
 * Stateless.
 */
final class ErrorPayload {
    static final byte MARKER = 0;
    static final byte VERSION = 1;

    private ErrorPayload() {}

    static byte[] encode(ApplicationError error) {
        byte[] code = error.code().getBytes(StandardCharsets.US_ASCII);
        byte[] message = error.message().getBytes(StandardCharsets.UTF_8);
        byte[] type = error.exceptionClass().getBytes(StandardCharsets.UTF_8);
        byte[] detail = error.detail();
        if (type.length > 0xFFFF) {
            throw new IllegalArgumentException("an exception class name of " + type.length + " bytes is too long");
        }
        ByteBuffer out =
                ByteBuffer.allocate(2 + 1 + code.length + 4 + message.length + 2 + type.length + 4 + detail.length);
        out.put(MARKER).put(VERSION);
        out.put((byte) code.length).put(code);
        out.putInt(message.length).put(message);
        out.putShort((short) type.length).put(type);
        out.putInt(detail.length).put(detail);
        return out.array();
    }

    static ApplicationError decode(byte[] payload) {
        if (payload.length == 0 || payload[0] != MARKER) {
            String text = new String(payload, StandardCharsets.UTF_8);
            return new ApplicationError(ApplicationException.REPLICA, text, "", new byte[0]);
        }
        if (payload.length < 2 || payload[1] != VERSION) {
            throw new EveException("an error reply in layout version "
                    + (payload.length < 2 ? "(missing)" : Integer.toString(payload[1] & 0xFF))
                    + " cannot be read: this version of Eve reads layout version " + VERSION);
        }
        ByteBuffer in = ByteBuffer.wrap(payload, 2, payload.length - 2);
        try {
            String code = text(in, in.get() & 0xFF, "code");
            String message = text(in, in.getInt(), "message");
            String type = text(in, in.getShort() & 0xFFFF, "exception class");
            byte[] detail = bytes(in, in.getInt(), "detail");
            if (in.hasRemaining()) {
                throw malformed(in.remaining() + " bytes follow the detail");
            }
            return new ApplicationError(code, message, type, detail);
        } catch (BufferUnderflowException e) {
            throw malformed("it ends inside a field");
        } catch (IllegalArgumentException e) {
            throw malformed(e.getMessage());
        }
    }

    private static String text(ByteBuffer in, int length, String field) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes(in, length, field)))
                    .toString();
        } catch (CharacterCodingException e) {
            throw malformed("its " + field + " is not UTF-8");
        }
    }

    private static byte[] bytes(ByteBuffer in, int length, String field) {
        if (length < 0 || length > in.remaining()) {
            throw malformed("its " + field + " claims " + Integer.toUnsignedString(length) + " bytes, " + in.remaining()
                    + " remain");
        }
        byte[] value = new byte[length];
        in.get(value);
        return value;
    }

    private static EveException malformed(String why) {
        return new EveException("a malformed error reply (layout version " + VERSION + "): " + why);
    }
}
