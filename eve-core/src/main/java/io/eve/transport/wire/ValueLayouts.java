package io.eve.transport.wire;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import java.util.ArrayList;
import java.util.List;

/**
 * The wire layouts of the values that messages carry: requests, replies, batches, tokens and state deltas
 * (docs/protocol.md, "Wire format"). Reading yields the raw fields; turning them into values, which
 * validates them, waits until the frame's checksum has been checked.
 */
final class ValueLayouts {
    static final int REQUEST_FIXED_BYTES = 3 * Long.BYTES + Integer.BYTES;
    static final int REPLY_FIXED_BYTES = 2 * Long.BYTES + 1 + Integer.BYTES;
    static final int BATCH_FIXED_BYTES = 3 * Long.BYTES + Integer.BYTES;
    static final int TOKEN_BYTES = Long.BYTES + 4 * Digest.LENGTH;
    static final int DELTA_FIXED_BYTES = 2 * Long.BYTES + Integer.BYTES;

    private ValueLayouts() {}

    static long requestSize(Request request) {
        return REQUEST_FIXED_BYTES + (long) request.payload().length;
    }

    static void writeRequest(Request request, FrameOutput out) {
        out.putLong(request.clientId());
        out.putLong(request.requestSeq());
        out.putLong(request.lowestUnanswered());
        out.putBytes(request.payload());
    }

    static RequestFields readRequest(FrameInput in) {
        return new RequestFields(
                in.getLong("client id"),
                in.getLong("request number"),
                in.getLong("lowest unanswered request number"),
                in.getBytes("request payload"));
    }

    static long replySize(Reply reply) {
        return REPLY_FIXED_BYTES + (long) reply.payload().length;
    }

    static void writeReply(Reply reply, FrameOutput out) {
        out.putLong(reply.clientId());
        out.putLong(reply.requestSeq());
        out.putBoolean(reply.error());
        out.putBytes(reply.payload());
    }

    static ReplyFields readReply(FrameInput in) {
        return new ReplyFields(
                in.getLong("client id"),
                in.getLong("request number"),
                in.getByte("error flag"),
                in.getBytes("reply payload"));
    }

    static long batchSize(Batch batch) {
        long size = BATCH_FIXED_BYTES;
        for (Request request : batch.requests()) {
            size += requestSize(request);
        }
        return size;
    }

    static void writeBatch(Batch batch, FrameOutput out) {
        out.putLong(batch.seq());
        out.putLong(batch.timestampMillis());
        out.putLong(batch.seed());
        out.putInt(batch.size());
        for (Request request : batch.requests()) {
            writeRequest(request, out);
        }
    }

    static BatchFields readBatch(FrameInput in) {
        long seq = in.getLong("batch number");
        long timestampMillis = in.getLong("batch timestamp");
        long seed = in.getLong("batch seed");
        int count = in.getCount(REQUEST_FIXED_BYTES, "request count");
        List<RequestFields> requests = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            requests.add(readRequest(in));
        }
        return new BatchFields(seq, timestampMillis, seed, requests);
    }

    static void writeToken(Token token, FrameOutput out) {
        out.putLong(token.seq());
        out.putDigest(token.stateRoot());
        out.putDigest(token.replyDigest());
        out.putDigest(token.previous());
        out.putDigest(token.digest());
    }

    static TokenFields readToken(FrameInput in) {
        return new TokenFields(
                in.getLong("token batch number"),
                in.getDigest("state root"),
                in.getDigest("reply digest"),
                in.getDigest("previous token digest"),
                in.getDigest("token digest"));
    }

    static long deltaSize(StateDelta delta) {
        return DELTA_FIXED_BYTES + (long) delta.size();
    }

    static void writeDelta(StateDelta delta, FrameOutput out) {
        out.putLong(delta.baseSeq());
        out.putLong(delta.targetSeq());
        out.putBytes(delta.payload());
    }

    static DeltaFields readDelta(FrameInput in) {
        return new DeltaFields(in.getLong("delta base"), in.getLong("delta target"), in.getBytes("delta payload"));
    }

    /** A flag byte, which must be 0 or 1. */
    static boolean flag(byte value, String what) {
        if (value != 0 && value != 1) {
            throw new FrameException(FrameException.Reason.INVALID_VALUE, what + " is " + value + ", expected 0 or 1");
        }
        return value == 1;
    }

    record RequestFields(long clientId, long requestSeq, long lowestUnanswered, byte[] payload) {
        Request toRequest() {
            return new Request(clientId, requestSeq, lowestUnanswered, payload);
        }
    }

    record ReplyFields(long clientId, long requestSeq, byte error, byte[] payload) {
        Reply toReply() {
            return new Reply(clientId, requestSeq, flag(error, "the reply's error flag"), payload);
        }
    }

    record BatchFields(long seq, long timestampMillis, long seed, List<RequestFields> requests) {
        Batch toBatch() {
            List<Request> values = new ArrayList<>(requests.size());
            for (RequestFields request : requests) {
                values.add(request.toRequest());
            }
            return new Batch(seq, timestampMillis, seed, values);
        }
    }

    record TokenFields(long seq, Digest stateRoot, Digest replyDigest, Digest previous, Digest digest) {
        /** The token, if its digest is the one its fields hash to; a token is never taken on trust. */
        Token toToken() {
            Token token = Token.of(seq, stateRoot, replyDigest, previous);
            if (!token.digest().equals(digest)) {
                throw new FrameException(
                        FrameException.Reason.INVALID_VALUE,
                        "the token for batch " + seq + " carries digest " + digest.toHex() + ", but its fields hash to "
                                + token.digest().toHex());
            }
            return token;
        }
    }

    record DeltaFields(long baseSeq, long targetSeq, byte[] payload) {
        StateDelta toDelta() {
            return new StateDelta(baseSeq, targetSeq, payload);
        }
    }
}
