package io.eve.protocol;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.execution.Token;
import io.eve.merkle.ObjectDigest;
import io.eve.merkle.StateDelta;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Everything replicas and clients say to each other (docs/protocol.md maps each to its paper section).
 * {@code view} numbers the configuration (who is primary); {@code epoch} numbers rollbacks within the
 * protocol's history, so a message about a discarded execution is recognised and ignored.
 */
public sealed interface Message {

    /** A client's request, to the primary. */
    record ClientRequest(Request request) implements Message {}

    /** The reply to a request, released once its batch committed. */
    record ClientReply(Reply reply) implements Message {}

    /**
     * Eve §6's read-only optimisation: a client asks every execution replica to run a request that does
     * not change the state, outside the batches, numbered apart from its ordered requests
     * ({@code request.requestSeq()} is the read's own number).
     */
    record ReadRequest(Request request) implements Message {}

    /**
     * A replica's answer to a {@link ReadRequest}, sent once the state it read from committed. With
     * {@code reissue}, the replica could not answer (the state it read was rolled back, or the request
     * wrote to the state) and {@code reply}'s error text says why: the client sends the request again as
     * an ordered one.
     */
    record ReadReply(Reply reply, boolean reissue) implements Message {}

    /** "I am not the primary; node {@code primary} is, as far as I know." */
    record Redirect(long clientId, long requestSeq, int primary) implements Message {}

    /** Eve §6.2 EXECUTE-BATCH: the primary's batch with its nondeterminism data, to the backup. */
    record ExecuteBatch(long view, long epoch, Batch batch, boolean sequential) implements Message {}

    /** The backup's token for a batch, to the primary, which compares it with its own (Eve §6.2). */
    record BatchToken(long view, long epoch, Token token) implements Message {}

    /** Batch {@code seq} and everything before it committed: the backup marks it stable. */
    record Commit(long view, long seq) implements Message {}

    /**
     * Tokens differed: roll back to {@code toSeq}; the batches after it come again (Eve §6.2). With
     * {@code awaitTransfer}, sequential re-execution differed too: wait for the primary's state first.
     */
    record Rollback(long view, long epoch, long toSeq, boolean awaitTransfer) implements Message {}

    /** Liveness, and the sender's view and last stable batch. */
    record Heartbeat(long view, long stableSeq) implements Message {}

    /** A returning node asks the primary to bring it up to date from its last stable batch. */
    record JoinRequest(long view, long stableSeq) implements Message {}

    /** Incremental state transfer: the changes since the receiver's stable batch, and the token they lead to. */
    record StateTransfer(long view, long epoch, Token token, StateDelta delta) implements Message {}

    /**
     * The objects an execution replica's sequential run of batch {@code seq} changed, with their leaf digests
     * (docs/state.md, "Diagnosing a batch that still differs"): sent just before the token of a batch run
     * sequentially, so that a replica that finds the tokens still differ can name the objects on which they
     * diverged. A report, never evidence: nothing is decided on it. {@code entries} are in strictly increasing
     * id order, at most {@link #MAX_ENTRIES}, names at most {@link #MAX_NAME_BYTES} bytes of UTF-8;
     * {@code omitted} counts the changed objects left out to keep the message small (the highest ids).
     */
    record ObjectDigests(long view, long epoch, long seq, List<ObjectDigest> entries, int omitted) implements Message {
        /** The most entries one message carries. */
        public static final int MAX_ENTRIES = 1024;

        /** The longest stable or class name carried, in bytes of UTF-8; longer ones are cut. */
        public static final int MAX_NAME_BYTES = 200;

        /** What {@link #of} keeps the entries' encoded size under. */
        public static final int BUDGET_BYTES = 64 * 1024;

        /** Bytes of one entry besides its names: id, two name lengths, digest. */
        public static final int ENTRY_FIXED_BYTES = Long.BYTES + 2 * Integer.BYTES + 32;

        public ObjectDigests {
            entries = List.copyOf(entries);
            if (seq < 1) {
                throw new IllegalArgumentException("batch numbers start at 1, got " + seq);
            }
            if (omitted < 0) {
                throw new IllegalArgumentException("the omitted count " + omitted + " is negative");
            }
            if (entries.size() > MAX_ENTRIES) {
                throw new IllegalArgumentException(
                        entries.size() + " object digests exceed the limit of " + MAX_ENTRIES);
            }
            long previous = -1;
            for (ObjectDigest entry : entries) {
                if (entry.id() <= previous) {
                    throw new IllegalArgumentException(
                            "object ids must increase, but " + entry.id() + " follows " + previous);
                }
                previous = entry.id();
                checkName(entry.stableName(), "stable name");
                checkName(entry.className(), "class name");
            }
        }

        /**
         * The message for the objects a batch changed, cut to fit: names shortened to {@link #MAX_NAME_BYTES},
         * then the lowest ids that fit in {@link #MAX_ENTRIES} entries and {@link #BUDGET_BYTES} bytes.
         */
        public static ObjectDigests of(long view, long epoch, long seq, List<ObjectDigest> changed) {
            List<ObjectDigest> kept = new ArrayList<>();
            long bytes = 0;
            for (ObjectDigest entry : changed) {
                ObjectDigest cut =
                        new ObjectDigest(entry.id(), cut(entry.stableName()), cut(entry.className()), entry.digest());
                long size = ENTRY_FIXED_BYTES + utf8Length(cut.stableName()) + utf8Length(cut.className());
                if (kept.size() == MAX_ENTRIES || bytes + size > BUDGET_BYTES) {
                    break;
                }
                kept.add(cut);
                bytes += size;
            }
            return new ObjectDigests(view, epoch, seq, kept, changed.size() - kept.size());
        }

        private static void checkName(String name, String what) {
            if (utf8Length(name) > MAX_NAME_BYTES) {
                throw new IllegalArgumentException(
                        "a " + what + " of " + utf8Length(name) + " bytes exceeds the limit of " + MAX_NAME_BYTES);
            }
        }

        private static int utf8Length(String text) {
            return text.getBytes(StandardCharsets.UTF_8).length;
        }

        /** The longest prefix of whole code points that fits in {@link #MAX_NAME_BYTES}. */
        private static String cut(String name) {
            if (utf8Length(name) <= MAX_NAME_BYTES) {
                return name;
            }
            int end = 0;
            int bytes = 0;
            while (end < name.length()) {
                int next = name.offsetByCodePoints(end, 1);
                int size = utf8Length(name.substring(end, next));
                if (bytes + size > MAX_NAME_BYTES) {
                    break;
                }
                bytes += size;
                end = next;
            }
            return name.substring(0, end);
        }
    }

    // ---- primary-backup's fence (docs/primary-backup.md, "Fencing with a witness") ----------------------

    /**
     * A replica asks the witness for the right to commit alone in {@code view} ({@code solo}: Solo(view)),
     * or, as the holder of that right, gives it back because its peer caught up (Pair(view)). Repeated
     * until answered; {@code requestId} ties the answer to this request.
     */
    record FenceRequest(long view, boolean solo, long requestId) implements Message {}

    /**
     * The witness's state after it handled request {@code requestId}: the view of its last grant, whether
     * that grant is still held ({@code solo}) and by whom ({@code holder}). A requester reads a grant or a
     * refusal from it.
     */
    record FenceAnswer(long requestId, long view, boolean solo, int holder) implements Message {}

    /** A witness that restarted without a disk asks the replicas for their fence state, tagged {@code nonce}. */
    record FenceProbe(long nonce) implements Message {}

    /**
     * A replica's fence state, to the witness, every heartbeat interval and in answer to a probe: its view
     * and whether it holds the right to commit alone in it; {@code nonce} is the last probe's it heard.
     */
    record FenceReport(long view, boolean soloHeld, long nonce) implements Message {}

    // ---- the asynchronous quorum protocol (Eve §6.1, docs/quorum.md) ----------------------------------

    /** Eve §6.1 VERIFY: an execution replica's token for batch {@code token.seq()}, to every verifier. */
    record Verify(long view, Token token) implements Message {}

    /** Eve §6.1 PREPARE: verifier {@code verifier} pre-prepared {@code token} in {@code view}. */
    record Prepare(long view, int verifier, Token token) implements Message {}

    /** Eve §6.1 COMMIT (named apart from primary-backup's {@link Commit}): {@code verifier} is prepared. */
    record CommitVote(long view, int verifier, Token token) implements Message {}

    /**
     * Eve §6.1 VERIFY-RESPONSE: the verifiers committed {@code token} in {@code view}; with
     * {@code sequential} it is the start of a new view and the next batch runs sequentially.
     */
    record VerifyResponse(long view, Token token, boolean sequential) implements Message {}

    /**
     * A verifier leaves its view for {@code newView}, reporting its best certificate: {@code nV - u}
     * {@link Prepare} or {@link CommitVote} messages (plain, or inside {@link Authenticated} or {@link Signed}
     * envelopes) for
     * {@code certificate} in {@code certificateView}. No certificate: view -1, a token of batch 0, no
     * evidence.
     */
    record ViewChange(long newView, int verifier, long certificateView, Token certificate, List<Message> evidence)
            implements Message {
        public ViewChange {
            evidence = List.copyOf(evidence);
        }
    }

    /**
     * The leader of {@code view} starts it from {@code start} (batch 0: the initial state), the choice
     * every verifier recomputes from {@code viewChanges}.
     */
    record NewView(long view, int verifier, List<Message> viewChanges, Token start) implements Message {
        public NewView {
            viewChanges = List.copyOf(viewChanges);
        }
    }

    /**
     * A verifier that restarted without its state asks the others where they are (docs/quorum.md,
     * "Rejoining"); each answers with a {@link JoinState} that echoes {@code nonce}, drawn afresh at each
     * start, so that an answer to a query of an earlier incarnation is never taken for a current one.
     */
    record JoinQuery(int verifier, long nonce) implements Message {}

    /**
     * An execution replica that restarted without its state asks a verifier how far the views have gone
     * (docs/quorum.md, "Restarting without a disk"): it may have led a view before, and must learn a view at
     * least as high as any it led before it may lead one again. Each {@link ViewReport} echoes {@code nonce},
     * drawn afresh at each start, so that an answer to an earlier incarnation never counts.
     */
    record ViewQuery(int replica, long nonce) implements Message {}

    /**
     * {@code verifier}'s answer to a {@link ViewQuery}: the highest view it has reached, the one it is
     * leaving for included.
     */
    record ViewReport(int verifier, long nonce, long view) implements Message {}

    /**
     * {@code verifier}'s answer to a {@link JoinQuery}: its view, whether it is leaving it, and the batch it
     * committed last with the proof: {@code nV - u} {@link CommitVote} messages for {@code committed} in
     * {@code certificateView}: plain in the crash profile, each inside a {@link Signed} envelope in bft
     * (docs/quorum.md, "Signed evidence", decision 0036: a proof a third party checks is signed, never only
     * MAC'd). Nothing committed in its view: certificate view -1, a token of batch 0, no evidence. While it
     * is {@code changing}, {@code view} is the view it is leaving for, not the one it left.
     *
     * <p>A joiner sends the same type to say what it did (docs/quorum.md, "Rejoining" and "Counting again
     * without a rejoin"): with its own nonce, {@code changing} false and a commit proof, the view and batch it
     * adopted; {@code changing} true and certificate view -2, that it restarted from its memory and adopted
     * nothing; {@code changing} false and certificate view -2, that this incarnation took part and will take
     * part in no view below {@code view}.
     */
    record JoinState(
            int verifier,
            long nonce,
            long view,
            boolean changing,
            long certificateView,
            Token committed,
            List<Message> evidence)
            implements Message {
        public JoinState {
            evidence = List.copyOf(evidence);
        }
    }

    /** An execution replica saw client requests wait for the primary of {@code view} too long. */
    record Suspect(long view) implements Message {}

    /** "Send me the state from my version {@code baseSeq} up to (at least) the agreed {@code agreed}." */
    record StateRequest(long view, long baseSeq, Token agreed) implements Message {}

    /**
     * Incremental state transfer for the quorum protocol: {@code chain} holds the sender's tokens from the
     * agreed one to the last it executed, each chained to the one before; {@code delta} leads to the last.
     */
    record ChainTransfer(List<Token> chain, StateDelta delta) implements Message {
        public ChainTransfer {
            chain = List.copyOf(chain);
            if (chain.isEmpty()) {
                throw new IllegalArgumentException("a chain transfer needs at least the agreed token");
            }
        }
    }

    /**
     * A message with its authenticator (Eve §3): {@code frame} is the encoded inner message, {@code tags}
     * one HMAC-SHA256 tag (32 bytes) per process of the cluster, in id order, each keyed for the pair
     * (origin, that process). Forwarded unchanged as evidence, so every receiver can check its own tag.
     */
    record Authenticated(int origin, byte[] frame, byte[] tags) implements Message {
        public Authenticated {
            Objects.requireNonNull(frame, "frame");
            Objects.requireNonNull(tags, "tags");
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Authenticated that
                    && origin == that.origin
                    && Arrays.equals(frame, that.frame)
                    && Arrays.equals(tags, that.tags);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * origin + Arrays.hashCode(frame)) + Arrays.hashCode(tags);
        }

        @Override
        public String toString() {
            return "Authenticated[origin " + origin + ", " + frame.length + " bytes, " + tags.length / 32 + " tags]";
        }
    }

    /**
     * A verifier's own evidence ({@link Prepare}, {@link CommitVote} or {@link ViewChange}) with its signature
     * (docs/quorum.md, "Signed evidence"): {@code frame} is the encoded message, {@code signature} the
     * Ed25519 signature of {@code origin} over {@code int origin || frame}. Unlike an {@link Authenticated}
     * tag vector it checks out the same at every receiver, however often it is forwarded.
     */
    record Signed(int origin, byte[] frame, byte[] signature) implements Message {
        public Signed {
            Objects.requireNonNull(frame, "frame");
            Objects.requireNonNull(signature, "signature");
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Signed that
                    && origin == that.origin
                    && Arrays.equals(frame, that.frame)
                    && Arrays.equals(signature, that.signature);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * origin + Arrays.hashCode(frame)) + Arrays.hashCode(signature);
        }

        @Override
        public String toString() {
            return "Signed[origin " + origin + ", " + frame.length + " bytes]";
        }
    }
}
