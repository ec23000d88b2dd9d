package io.eve.transport.wire;

import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.protocol.Message.Authenticated;
import io.eve.protocol.Message.ChainTransfer;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.JoinQuery;
import io.eve.protocol.Message.JoinState;
import io.eve.protocol.Message.NewView;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.StateRequest;
import io.eve.protocol.Message.Suspect;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.VerifyResponse;
import io.eve.protocol.Message.ViewChange;
import io.eve.protocol.Message.ViewQuery;
import io.eve.protocol.Message.ViewReport;
import io.eve.transport.wire.FrameException.Reason;
import io.eve.transport.wire.ValueLayouts.DeltaFields;
import io.eve.transport.wire.ValueLayouts.TokenFields;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The body layouts of the quorum protocol's messages (Eve §6.1; docs/protocol.md, "Wire format"). Messages
 * that carry other messages as evidence ({@link ViewChange}, {@link NewView}, {@link JoinState}) hold them as whole nested
 * frames, each refused unless its type is one that may appear there, checked before it is decoded, so
 * nesting is at most three deep whatever the input.
 */
final class QuorumLayouts {
    /** Nested frames were bounded by the outer frame's size already. */
    private static final FrameCodec NESTED = new FrameCodec(FrameCodec.LARGEST_MAXIMUM);

    private static final int TAG_BYTES = 32;

    private QuorumLayouts() {}

    /** How one message type is laid out. */
    interface Layout {
        long bodySize(Message message);

        void writeBody(Message message, FrameOutput out);

        Supplier<Message> readBody(FrameInput in);
    }

    static final Layout VERIFY = new Layout() {
        @Override
        public long bodySize(Message message) {
            return Long.BYTES + ValueLayouts.TOKEN_BYTES;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            Verify verify = (Verify) message;
            out.putLong(verify.view());
            ValueLayouts.writeToken(verify.token(), out);
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            TokenFields token = ValueLayouts.readToken(in);
            return () -> new Verify(view, token.toToken());
        }
    };

    static final Layout PREPARE = new Layout() {
        @Override
        public long bodySize(Message message) {
            return Long.BYTES + Integer.BYTES + ValueLayouts.TOKEN_BYTES;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            Prepare prepare = (Prepare) message;
            out.putLong(prepare.view());
            out.putInt(prepare.verifier());
            ValueLayouts.writeToken(prepare.token(), out);
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            int verifier = in.getInt("verifier");
            TokenFields token = ValueLayouts.readToken(in);
            return () -> new Prepare(view, verifier, token.toToken());
        }
    };

    static final Layout COMMIT_VOTE = new Layout() {
        @Override
        public long bodySize(Message message) {
            return Long.BYTES + Integer.BYTES + ValueLayouts.TOKEN_BYTES;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            CommitVote vote = (CommitVote) message;
            out.putLong(vote.view());
            out.putInt(vote.verifier());
            ValueLayouts.writeToken(vote.token(), out);
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            int verifier = in.getInt("verifier");
            TokenFields token = ValueLayouts.readToken(in);
            return () -> new CommitVote(view, verifier, token.toToken());
        }
    };

    static final Layout VERIFY_RESPONSE = new Layout() {
        @Override
        public long bodySize(Message message) {
            return Long.BYTES + ValueLayouts.TOKEN_BYTES + 1;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            VerifyResponse response = (VerifyResponse) message;
            out.putLong(response.view());
            ValueLayouts.writeToken(response.token(), out);
            out.putBoolean(response.sequential());
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            TokenFields token = ValueLayouts.readToken(in);
            byte sequential = in.getByte("sequential flag");
            return () ->
                    new VerifyResponse(view, token.toToken(), ValueLayouts.flag(sequential, "the sequential flag"));
        }
    };

    static final Layout VIEW_CHANGE = new Layout() {
        @Override
        public long bodySize(Message message) {
            ViewChange change = (ViewChange) message;
            return 2 * Long.BYTES + Integer.BYTES + ValueLayouts.TOKEN_BYTES + nestedSize(change.evidence());
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            ViewChange change = (ViewChange) message;
            out.putLong(change.newView());
            out.putInt(change.verifier());
            out.putLong(change.certificateView());
            ValueLayouts.writeToken(change.certificate(), out);
            writeNested(change.evidence(), out);
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            long newView = in.getLong("new view");
            int verifier = in.getInt("verifier");
            long certificateView = in.getLong("certificate view");
            TokenFields token = ValueLayouts.readToken(in);
            List<byte[]> evidence = readNested(in, "evidence count");
            return () -> new ViewChange(
                    newView,
                    verifier,
                    certificateView,
                    token.toToken(),
                    decodeNested(evidence, EVIDENCE_TYPES, "certificate evidence"));
        }
    };

    static final Layout NEW_VIEW = new Layout() {
        @Override
        public long bodySize(Message message) {
            NewView newView = (NewView) message;
            return Long.BYTES + Integer.BYTES + nestedSize(newView.viewChanges()) + ValueLayouts.TOKEN_BYTES;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            NewView newView = (NewView) message;
            out.putLong(newView.view());
            out.putInt(newView.verifier());
            writeNested(newView.viewChanges(), out);
            ValueLayouts.writeToken(newView.start(), out);
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            int verifier = in.getInt("verifier");
            List<byte[]> changes = readNested(in, "view change count");
            TokenFields start = ValueLayouts.readToken(in);
            return () -> new NewView(
                    view, verifier, decodeNested(changes, VIEW_CHANGE_TYPES, "view change"), start.toToken());
        }
    };

    static final Layout JOIN_QUERY = new Layout() {
        @Override
        public long bodySize(Message message) {
            return Integer.BYTES + Long.BYTES;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            JoinQuery query = (JoinQuery) message;
            out.putInt(query.verifier());
            out.putLong(query.nonce());
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            JoinQuery query = new JoinQuery(in.getInt("verifier"), in.getLong("nonce"));
            return () -> query;
        }
    };

    static final Layout VIEW_QUERY = new Layout() {
        @Override
        public long bodySize(Message message) {
            return Integer.BYTES + Long.BYTES;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            ViewQuery query = (ViewQuery) message;
            out.putInt(query.replica());
            out.putLong(query.nonce());
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            ViewQuery query = new ViewQuery(in.getInt("replica"), in.getLong("nonce"));
            return () -> query;
        }
    };

    static final Layout VIEW_REPORT = new Layout() {
        @Override
        public long bodySize(Message message) {
            return Integer.BYTES + 2 * Long.BYTES;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            ViewReport report = (ViewReport) message;
            out.putInt(report.verifier());
            out.putLong(report.nonce());
            out.putLong(report.view());
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            ViewReport report = new ViewReport(in.getInt("verifier"), in.getLong("nonce"), in.getLong("view"));
            return () -> report;
        }
    };

    static final Layout JOIN_STATE = new Layout() {
        @Override
        public long bodySize(Message message) {
            JoinState state = (JoinState) message;
            return Integer.BYTES + 3 * Long.BYTES + 1 + ValueLayouts.TOKEN_BYTES + nestedSize(state.evidence());
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            JoinState state = (JoinState) message;
            out.putInt(state.verifier());
            out.putLong(state.nonce());
            out.putLong(state.view());
            out.putBoolean(state.changing());
            out.putLong(state.certificateView());
            ValueLayouts.writeToken(state.committed(), out);
            writeNested(state.evidence(), out);
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            int verifier = in.getInt("verifier");
            long nonce = in.getLong("nonce");
            long view = in.getLong("view");
            byte changing = in.getByte("changing flag");
            long certificateView = in.getLong("certificate view");
            TokenFields token = ValueLayouts.readToken(in);
            List<byte[]> evidence = readNested(in, "evidence count");
            return () -> new JoinState(
                    verifier,
                    nonce,
                    view,
                    ValueLayouts.flag(changing, "the changing flag"),
                    certificateView,
                    token.toToken(),
                    decodeNested(evidence, EVIDENCE_TYPES, "commit evidence"));
        }
    };

    static final Layout SUSPECT = new Layout() {
        @Override
        public long bodySize(Message message) {
            return Long.BYTES;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            out.putLong(((Suspect) message).view());
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            Suspect suspect = new Suspect(in.getLong("view"));
            return () -> suspect;
        }
    };

    static final Layout STATE_REQUEST = new Layout() {
        @Override
        public long bodySize(Message message) {
            return 2 * Long.BYTES + ValueLayouts.TOKEN_BYTES;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            StateRequest request = (StateRequest) message;
            out.putLong(request.view());
            out.putLong(request.baseSeq());
            ValueLayouts.writeToken(request.agreed(), out);
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            long baseSeq = in.getLong("base batch number");
            TokenFields agreed = ValueLayouts.readToken(in);
            return () -> new StateRequest(view, baseSeq, agreed.toToken());
        }
    };

    static final Layout CHAIN_TRANSFER = new Layout() {
        @Override
        public long bodySize(Message message) {
            ChainTransfer transfer = (ChainTransfer) message;
            return Integer.BYTES
                    + (long) transfer.chain().size() * ValueLayouts.TOKEN_BYTES
                    + ValueLayouts.deltaSize(transfer.delta());
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            ChainTransfer transfer = (ChainTransfer) message;
            out.putInt(transfer.chain().size());
            for (Token token : transfer.chain()) {
                ValueLayouts.writeToken(token, out);
            }
            ValueLayouts.writeDelta(transfer.delta(), out);
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            int count = in.getCount(ValueLayouts.TOKEN_BYTES, "token count");
            List<TokenFields> chain = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                chain.add(ValueLayouts.readToken(in));
            }
            DeltaFields delta = ValueLayouts.readDelta(in);
            return () -> {
                List<Token> tokens = new ArrayList<>(chain.size());
                for (TokenFields token : chain) {
                    tokens.add(token.toToken());
                }
                return new ChainTransfer(tokens, delta.toDelta());
            };
        }
    };

    static final Layout AUTHENTICATED = new Layout() {
        @Override
        public long bodySize(Message message) {
            Authenticated authenticated = (Authenticated) message;
            return Integer.BYTES + 2L * Integer.BYTES + authenticated.frame().length + authenticated.tags().length;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            Authenticated authenticated = (Authenticated) message;
            out.putInt(authenticated.origin());
            out.putBytes(authenticated.frame());
            out.putBytes(authenticated.tags());
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            int origin = in.getInt("origin");
            byte[] frame = in.getBytes("inner frame");
            byte[] tags = in.getBytes("tags");
            return () -> {
                if (tags.length % TAG_BYTES != 0) {
                    throw new IllegalArgumentException(
                            "the tags take " + tags.length + " bytes, not a multiple of " + TAG_BYTES);
                }
                return new Authenticated(origin, frame, tags);
            };
        }
    };

    /** Bytes of an Ed25519 signature. */
    static final int SIGNATURE_BYTES = 64;

    static final Layout SIGNED = new Layout() {
        @Override
        public long bodySize(Message message) {
            Message.Signed signed = (Message.Signed) message;
            return Integer.BYTES + 2L * Integer.BYTES + signed.frame().length + signed.signature().length;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            Message.Signed signed = (Message.Signed) message;
            out.putInt(signed.origin());
            out.putBytes(signed.frame());
            out.putBytes(signed.signature());
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            int origin = in.getInt("origin");
            byte[] frame = in.getBytes("signed frame");
            byte[] signature = in.getBytes("signature");
            return () -> {
                if (signature.length != SIGNATURE_BYTES) {
                    throw new IllegalArgumentException(
                            "the signature takes " + signature.length + " bytes, not " + SIGNATURE_BYTES);
                }
                return new Message.Signed(origin, frame, signature);
            };
        }
    };

    private static final Set<Class<?>> EVIDENCE_TYPES =
            Set.of(Prepare.class, CommitVote.class, Authenticated.class, Message.Signed.class);
    private static final Set<Class<?>> VIEW_CHANGE_TYPES =
            Set.of(ViewChange.class, Authenticated.class, Message.Signed.class);

    private static long nestedSize(List<Message> messages) {
        long size = Integer.BYTES;
        for (Message message : messages) {
            size += Integer.BYTES
                    + FrameCodec.HEADER_BYTES
                    + MessageType.of(message).bodySize(message)
                    + FrameCodec.CHECKSUM_BYTES;
        }
        return size;
    }

    private static void writeNested(List<Message> messages, FrameOutput out) {
        out.putInt(messages.size());
        for (Message message : messages) {
            out.putBytes(NESTED.encode(message));
        }
    }

    private static List<byte[]> readNested(FrameInput in, String what) {
        int count = in.getCount(Integer.BYTES + FrameCodec.MIN_LENGTH + FrameCodec.LENGTH_FIELD_BYTES, what);
        List<byte[]> frames = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            frames.add(in.getBytes("nested frame"));
        }
        return frames;
    }

    /** Decodes nested frames, refusing any whose type may not appear there before decoding it. */
    private static List<Message> decodeNested(List<byte[]> frames, Set<Class<?>> allowed, String what) {
        List<Message> messages = new ArrayList<>(frames.size());
        for (byte[] frame : frames) {
            if (frame.length >= FrameCodec.HEADER_BYTES) {
                MessageType type = MessageType.ofCode(frame[FrameCodec.HEADER_BYTES - 1] & 0xff);
                if (type == null || !allowed.contains(type.messageClass())) {
                    throw new FrameException(
                            Reason.INVALID_VALUE,
                            "a " + (type == null ? "message of unknown type" : type.displayName())
                                    + " may not appear as " + what);
                }
            }
            messages.add(NESTED.decode(frame));
        }
        return messages;
    }
}
