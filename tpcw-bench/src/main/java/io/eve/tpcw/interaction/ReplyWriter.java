package io.eve.tpcw.interaction;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * Builds a reply payload: what the page would show, compactly (ids, counts, amounts in cents, a few
 * strings). Replies enter Eve's token, so they hold only values that follow from the state and the request.
 * Confined to one thread.
 */
final class ReplyWriter {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    private final DataOutputStream out = new DataOutputStream(bytes);

    ReplyWriter(Interaction interaction) {
        putByte(interaction.code());
    }

    ReplyWriter putByte(int value) {
        try {
            out.writeByte(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    ReplyWriter putInt(int value) {
        try {
            out.writeInt(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    ReplyWriter putLong(long value) {
        try {
            out.writeLong(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    ReplyWriter putMoney(BigDecimal value) {
        return putLong(value == null ? -1 : value.movePointRight(2).longValue());
    }

    ReplyWriter putString(String value) {
        byte[] encoded = value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8);
        putInt(encoded.length);
        bytes.write(encoded, 0, encoded.length);
        return this;
    }

    byte[] toBytes() {
        return bytes.toByteArray();
    }
}
