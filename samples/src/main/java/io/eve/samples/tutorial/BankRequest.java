package io.eve.samples.tutorial;

import io.eve.RequestCodec;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * What a client asks the bank, and how it travels ({@link #CODEC}): one byte naming the operation, then its
 * fields ({@link DataOutputStream} encoding). Every request is answered with an amount: a balance, or the
 * total. Amounts are whole units, never negative.
 */
public sealed interface BankRequest {
    /** Requests and their answers as bytes, the same on replicas and clients. */
    RequestCodec<BankRequest, Long> CODEC =
            RequestCodec.of(BankRequest::encode, BankRequest::decode, BankRequest::amountReply, BankRequest::amountOf);

    /** Opens {@code account} with {@code amount}; an account opened twice is an error. */
    record Open(String account, long amount) implements BankRequest {}

    /** Adds {@code amount} to {@code account}. */
    record Deposit(String account, long amount) implements BankRequest {}

    /** Moves {@code amount} from one account to another, or fails without moving anything. */
    record Transfer(String from, String to, long amount) implements BankRequest {}

    /** Reads one balance. */
    record Balance(String account) implements BankRequest {}

    /** Reads the sum of every balance: the audit. */
    record Total() implements BankRequest {}

    static byte[] encode(BankRequest request) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            if (request instanceof Open open) {
                out.writeByte(1);
                out.writeUTF(open.account());
                out.writeLong(open.amount());
            } else if (request instanceof Deposit deposit) {
                out.writeByte(2);
                out.writeUTF(deposit.account());
                out.writeLong(deposit.amount());
            } else if (request instanceof Transfer transfer) {
                out.writeByte(3);
                out.writeUTF(transfer.from());
                out.writeUTF(transfer.to());
                out.writeLong(transfer.amount());
            } else if (request instanceof Balance balance) {
                out.writeByte(4);
                out.writeUTF(balance.account());
            } else {
                out.writeByte(5);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** @throws IllegalArgumentException naming what is wrong with {@code payload} */
    static BankRequest decode(byte[] payload) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(payload))) {
            BankRequest request = switch (in.readByte()) {
                case 1 -> new Open(in.readUTF(), amount(in.readLong()));
                case 2 -> new Deposit(in.readUTF(), amount(in.readLong()));
                case 3 -> new Transfer(in.readUTF(), in.readUTF(), amount(in.readLong()));
                case 4 -> new Balance(in.readUTF());
                case 5 -> new Total();
                default -> throw new IllegalArgumentException("unknown bank operation " + payload[0]);
            };
            if (in.available() > 0) {
                throw new IllegalArgumentException(in.available() + " bytes after a bank request");
            }
            return request;
        } catch (IOException e) {
            throw new IllegalArgumentException("a bank request is truncated: " + e, e);
        }
    }

    private static long amount(long amount) {
        if (amount < 0) {
            throw new IllegalArgumentException("amounts are not negative, got " + amount);
        }
        return amount;
    }

    /** The bank's answer to every request: a balance (or a total), 8 big-endian bytes. */
    static byte[] amountReply(Long amount) {
        return ByteBuffer.allocate(Long.BYTES).putLong(amount).array();
    }

    /** Reads a reply of {@link #amountReply}. */
    static Long amountOf(byte[] reply) {
        if (reply.length != Long.BYTES) {
            throw new IllegalArgumentException("a bank reply is 8 bytes, got " + reply.length);
        }
        return ByteBuffer.wrap(reply).getLong();
    }
}
