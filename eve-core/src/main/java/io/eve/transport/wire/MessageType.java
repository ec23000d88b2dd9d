package io.eve.transport.wire;

import io.eve.protocol.Message;
import io.eve.protocol.Message.BatchToken;
import io.eve.protocol.Message.ClientReply;
import io.eve.protocol.Message.ClientRequest;
import io.eve.protocol.Message.Commit;
import io.eve.protocol.Message.ExecuteBatch;
import io.eve.protocol.Message.Heartbeat;
import io.eve.protocol.Message.JoinRequest;
import io.eve.protocol.Message.Redirect;
import io.eve.protocol.Message.Rollback;
import io.eve.protocol.Message.StateTransfer;
import io.eve.transport.wire.ValueLayouts.BatchFields;
import io.eve.transport.wire.ValueLayouts.DeltaFields;
import io.eve.transport.wire.ValueLayouts.ReplyFields;
import io.eve.transport.wire.ValueLayouts.RequestFields;
import io.eve.transport.wire.ValueLayouts.TokenFields;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The type byte of each message and the layout of its body (docs/protocol.md, "Wire format"). Fields go
 * in the order of the record's components. Reading returns the message still to be built, so that its
 * values are validated only after the frame's checksum has been checked. Codes are never reused.
 */
enum MessageType {
    CLIENT_REQUEST(1, ClientRequest.class) {
        @Override
        long bodySize(Message message) {
            return ValueLayouts.requestSize(((ClientRequest) message).request());
        }

        @Override
        void writeBody(Message message, FrameOutput out) {
            ValueLayouts.writeRequest(((ClientRequest) message).request(), out);
        }

        @Override
        Supplier<Message> readBody(FrameInput in) {
            RequestFields request = ValueLayouts.readRequest(in);
            return () -> new ClientRequest(request.toRequest());
        }
    },
    CLIENT_REPLY(2, ClientReply.class) {
        @Override
        long bodySize(Message message) {
            return ValueLayouts.replySize(((ClientReply) message).reply());
        }

        @Override
        void writeBody(Message message, FrameOutput out) {
            ValueLayouts.writeReply(((ClientReply) message).reply(), out);
        }

        @Override
        Supplier<Message> readBody(FrameInput in) {
            ReplyFields reply = ValueLayouts.readReply(in);
            return () -> new ClientReply(reply.toReply());
        }
    },
    REDIRECT(3, Redirect.class) {
        @Override
        long bodySize(Message message) {
            return 2 * Long.BYTES + Integer.BYTES;
        }

        @Override
        void writeBody(Message message, FrameOutput out) {
            Redirect redirect = (Redirect) message;
            out.putLong(redirect.clientId());
            out.putLong(redirect.requestSeq());
            out.putInt(redirect.primary());
        }

        @Override
        Supplier<Message> readBody(FrameInput in) {
            Redirect redirect =
                    new Redirect(in.getLong("client id"), in.getLong("request number"), in.getInt("primary"));
            return () -> redirect;
        }
    },
    EXECUTE_BATCH(4, ExecuteBatch.class) {
        @Override
        long bodySize(Message message) {
            return 2 * Long.BYTES + ValueLayouts.batchSize(((ExecuteBatch) message).batch()) + 1;
        }

        @Override
        void writeBody(Message message, FrameOutput out) {
            ExecuteBatch execute = (ExecuteBatch) message;
            out.putLong(execute.view());
            out.putLong(execute.epoch());
            ValueLayouts.writeBatch(execute.batch(), out);
            out.putBoolean(execute.sequential());
        }

        @Override
        Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            long epoch = in.getLong("epoch");
            BatchFields batch = ValueLayouts.readBatch(in);
            byte sequential = in.getByte("sequential flag");
            return () -> new ExecuteBatch(
                    view, epoch, batch.toBatch(), ValueLayouts.flag(sequential, "the sequential flag"));
        }
    },
    BATCH_TOKEN(5, BatchToken.class) {
        @Override
        long bodySize(Message message) {
            return 2 * Long.BYTES + ValueLayouts.TOKEN_BYTES;
        }

        @Override
        void writeBody(Message message, FrameOutput out) {
            BatchToken token = (BatchToken) message;
            out.putLong(token.view());
            out.putLong(token.epoch());
            ValueLayouts.writeToken(token.token(), out);
        }

        @Override
        Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            long epoch = in.getLong("epoch");
            TokenFields token = ValueLayouts.readToken(in);
            return () -> new BatchToken(view, epoch, token.toToken());
        }
    },
    COMMIT(6, Commit.class) {
        @Override
        long bodySize(Message message) {
            return 2 * Long.BYTES;
        }

        @Override
        void writeBody(Message message, FrameOutput out) {
            Commit commit = (Commit) message;
            out.putLong(commit.view());
            out.putLong(commit.seq());
        }

        @Override
        Supplier<Message> readBody(FrameInput in) {
            Commit commit = new Commit(in.getLong("view"), in.getLong("batch number"));
            return () -> commit;
        }
    },
    ROLLBACK(7, Rollback.class) {
        @Override
        long bodySize(Message message) {
            return 3 * Long.BYTES + 1;
        }

        @Override
        void writeBody(Message message, FrameOutput out) {
            Rollback rollback = (Rollback) message;
            out.putLong(rollback.view());
            out.putLong(rollback.epoch());
            out.putLong(rollback.toSeq());
            out.putBoolean(rollback.awaitTransfer());
        }

        @Override
        Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            long epoch = in.getLong("epoch");
            long toSeq = in.getLong("rollback target");
            byte awaitTransfer = in.getByte("await-transfer flag");
            return () -> new Rollback(view, epoch, toSeq, ValueLayouts.flag(awaitTransfer, "the await-transfer flag"));
        }
    },
    HEARTBEAT(8, Heartbeat.class) {
        @Override
        long bodySize(Message message) {
            return 2 * Long.BYTES;
        }

        @Override
        void writeBody(Message message, FrameOutput out) {
            Heartbeat heartbeat = (Heartbeat) message;
            out.putLong(heartbeat.view());
            out.putLong(heartbeat.stableSeq());
        }

        @Override
        Supplier<Message> readBody(FrameInput in) {
            Heartbeat heartbeat = new Heartbeat(in.getLong("view"), in.getLong("stable batch number"));
            return () -> heartbeat;
        }
    },
    JOIN_REQUEST(9, JoinRequest.class) {
        @Override
        long bodySize(Message message) {
            return 2 * Long.BYTES;
        }

        @Override
        void writeBody(Message message, FrameOutput out) {
            JoinRequest join = (JoinRequest) message;
            out.putLong(join.view());
            out.putLong(join.stableSeq());
        }

        @Override
        Supplier<Message> readBody(FrameInput in) {
            JoinRequest join = new JoinRequest(in.getLong("view"), in.getLong("stable batch number"));
            return () -> join;
        }
    },
    STATE_TRANSFER(10, StateTransfer.class) {
        @Override
        long bodySize(Message message) {
            return 2 * Long.BYTES
                    + ValueLayouts.TOKEN_BYTES
                    + ValueLayouts.deltaSize(((StateTransfer) message).delta());
        }

        @Override
        void writeBody(Message message, FrameOutput out) {
            StateTransfer transfer = (StateTransfer) message;
            out.putLong(transfer.view());
            out.putLong(transfer.epoch());
            ValueLayouts.writeToken(transfer.token(), out);
            ValueLayouts.writeDelta(transfer.delta(), out);
        }

        @Override
        Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            long epoch = in.getLong("epoch");
            TokenFields token = ValueLayouts.readToken(in);
            DeltaFields delta = ValueLayouts.readDelta(in);
            return () -> new StateTransfer(view, epoch, token.toToken(), delta.toDelta());
        }
    },
    VERIFY(11, Message.Verify.class, QuorumLayouts.VERIFY),
    PREPARE(12, Message.Prepare.class, QuorumLayouts.PREPARE),
    COMMIT_VOTE(13, Message.CommitVote.class, QuorumLayouts.COMMIT_VOTE),
    VERIFY_RESPONSE(14, Message.VerifyResponse.class, QuorumLayouts.VERIFY_RESPONSE),
    VIEW_CHANGE(15, Message.ViewChange.class, QuorumLayouts.VIEW_CHANGE),
    NEW_VIEW(16, Message.NewView.class, QuorumLayouts.NEW_VIEW),
    SUSPECT(17, Message.Suspect.class, QuorumLayouts.SUSPECT),
    STATE_REQUEST(18, Message.StateRequest.class, QuorumLayouts.STATE_REQUEST),
    CHAIN_TRANSFER(19, Message.ChainTransfer.class, QuorumLayouts.CHAIN_TRANSFER),
    AUTHENTICATED(20, Message.Authenticated.class, QuorumLayouts.AUTHENTICATED),
    JOIN_QUERY(27, Message.JoinQuery.class, QuorumLayouts.JOIN_QUERY),
    JOIN_STATE(28, Message.JoinState.class, QuorumLayouts.JOIN_STATE),
    READ_REQUEST(21, Message.ReadRequest.class) {
        @Override
        long bodySize(Message message) {
            return ValueLayouts.requestSize(((Message.ReadRequest) message).request());
        }

        @Override
        void writeBody(Message message, FrameOutput out) {
            ValueLayouts.writeRequest(((Message.ReadRequest) message).request(), out);
        }

        @Override
        Supplier<Message> readBody(FrameInput in) {
            RequestFields request = ValueLayouts.readRequest(in);
            return () -> new Message.ReadRequest(request.toRequest());
        }
    },
    READ_REPLY(22, Message.ReadReply.class) {
        @Override
        long bodySize(Message message) {
            return ValueLayouts.replySize(((Message.ReadReply) message).reply()) + 1;
        }

        @Override
        void writeBody(Message message, FrameOutput out) {
            Message.ReadReply read = (Message.ReadReply) message;
            ValueLayouts.writeReply(read.reply(), out);
            out.putBoolean(read.reissue());
        }

        @Override
        Supplier<Message> readBody(FrameInput in) {
            ReplyFields reply = ValueLayouts.readReply(in);
            byte reissue = in.getByte("reissue flag");
            return () -> new Message.ReadReply(reply.toReply(), ValueLayouts.flag(reissue, "the reissue flag"));
        }
    },
    FENCE_REQUEST(23, Message.FenceRequest.class, FenceLayouts.FENCE_REQUEST),
    FENCE_ANSWER(24, Message.FenceAnswer.class, FenceLayouts.FENCE_ANSWER),
    FENCE_PROBE(25, Message.FenceProbe.class, FenceLayouts.FENCE_PROBE),
    FENCE_REPORT(26, Message.FenceReport.class, FenceLayouts.FENCE_REPORT),
    SIGNED(29, Message.Signed.class, QuorumLayouts.SIGNED),
    OBJECT_DIGESTS(33, Message.ObjectDigests.class, DiagnosisLayouts.OBJECT_DIGESTS),
    VIEW_QUERY(40, Message.ViewQuery.class, QuorumLayouts.VIEW_QUERY),
    VIEW_REPORT(41, Message.ViewReport.class, QuorumLayouts.VIEW_REPORT);

    private static final MessageType[] BY_CODE = byCode();
    private static final Map<Class<?>, MessageType> BY_CLASS = byClass();

    private final int code;
    private final Class<? extends Message> messageClass;
    private final QuorumLayouts.Layout layout;

    MessageType(int code, Class<? extends Message> messageClass) {
        this(code, messageClass, null);
    }

    MessageType(int code, Class<? extends Message> messageClass, QuorumLayouts.Layout layout) {
        this.code = code;
        this.messageClass = messageClass;
        this.layout = layout;
    }

    Class<? extends Message> messageClass() {
        return messageClass;
    }

    int code() {
        return code;
    }

    /** The record's simple name, as messages about a frame call it. */
    String displayName() {
        return messageClass.getSimpleName();
    }

    /** The type whose code is {@code code}, or null for a code no message has. */
    static MessageType ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    static MessageType of(Message message) {
        return BY_CLASS.get(message.getClass());
    }

    private static MessageType[] byCode() {
        int highest = 0;
        for (MessageType type : values()) {
            highest = Math.max(highest, type.code);
        }
        MessageType[] types = new MessageType[highest + 1];
        for (MessageType type : values()) {
            types[type.code] = type;
        }
        return types;
    }

    private static Map<Class<?>, MessageType> byClass() {
        Map<Class<?>, MessageType> types = new HashMap<>();
        for (MessageType type : values()) {
            types.put(type.messageClass, type);
        }
        return Map.copyOf(types);
    }

    /** The number of bytes {@link #writeBody} writes; a long, since a batch can outgrow an int. */
    long bodySize(Message message) {
        return layout.bodySize(message);
    }

    void writeBody(Message message, FrameOutput out) {
        layout.writeBody(message, out);
    }

    /** Reads the fields, checking only that they fit; the supplier validates them and builds the message. */
    Supplier<Message> readBody(FrameInput in) {
        return layout.readBody(in);
    }
}
