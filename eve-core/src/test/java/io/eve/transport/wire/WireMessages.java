package io.eve.transport.wire;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.merkle.ObjectDigest;
import io.eve.merkle.StateDelta;
import io.eve.protocol.Message;
import io.eve.protocol.Message.Authenticated;
import io.eve.protocol.Message.BatchToken;
import io.eve.protocol.Message.ChainTransfer;
import io.eve.protocol.Message.ClientReply;
import io.eve.protocol.Message.ClientRequest;
import io.eve.protocol.Message.Commit;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.ExecuteBatch;
import io.eve.protocol.Message.Heartbeat;
import io.eve.protocol.Message.JoinQuery;
import io.eve.protocol.Message.JoinRequest;
import io.eve.protocol.Message.JoinState;
import io.eve.protocol.Message.NewView;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.ReadReply;
import io.eve.protocol.Message.ReadRequest;
import io.eve.protocol.Message.Redirect;
import io.eve.protocol.Message.Rollback;
import io.eve.protocol.Message.StateRequest;
import io.eve.protocol.Message.StateTransfer;
import io.eve.protocol.Message.Suspect;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.VerifyResponse;
import io.eve.protocol.Message.ViewChange;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Messages for codec tests: one fixed sample of each type, and random ones of every type. */
final class WireMessages {
    private WireMessages() {}

    static Token token(long seq) {
        return Token.of(seq, digest(1), digest(2), digest(3));
    }

    static Digest digest(int fill) {
        byte[] bytes = new byte[Digest.LENGTH];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (fill * 31 + i);
        }
        return Digest.of(bytes);
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** One message of each type, in type-code order. */
    static List<Message> samples() {
        Request request = new Request(7, 3, utf8("put k v"));
        return List.of(
                new ClientRequest(request),
                new ClientReply(Reply.of(request, utf8("ok"))),
                new Redirect(7, 3, 2),
                new ExecuteBatch(1, 0, new Batch(5, 1_700_000_000_000L, 42, List.of(request, request)), true),
                new BatchToken(1, 2, token(5)),
                new Commit(1, 5),
                new Rollback(1, 3, 4, true),
                new Heartbeat(1, 5),
                new JoinRequest(2, 4),
                new StateTransfer(1, 3, token(9), new StateDelta(4, 9, utf8("delta"))),
                new Verify(2, token(6)),
                new Prepare(2, 3, token(6)),
                new CommitVote(2, 1, token(6)),
                new VerifyResponse(3, token(6), true),
                viewChange(),
                new NewView(4, 0, List.of(viewChange(), authenticated()), token(6)),
                new Suspect(2),
                new JoinQuery(3, 77),
                new Message.ViewQuery(2, 78),
                new Message.ViewReport(1, 78, 5),
                new JoinState(1, 77, 2, false, 2, token(6), List.of(new CommitVote(2, 0, token(6)), authenticated())),
                new StateRequest(3, 4, token(6)),
                new ChainTransfer(List.of(token(6), token(7)), new StateDelta(4, 7, utf8("delta"))),
                authenticated(),
                new ReadRequest(new Request(7, 9, utf8("get k"))),
                new ReadReply(new Reply(7, 9, false, utf8("v")), false),
                new Message.FenceRequest(3, true, 11),
                new Message.FenceAnswer(11, 3, true, 1),
                new Message.FenceProbe(-7),
                new Message.FenceReport(3, false, -7),
                signed(),
                new ViewChange(4, 2, 1, token(6), List.of(signed(), signed())),
                objectDigests());
    }

    /** Two changed objects and the roots table of batch 6, one object left out. */
    static Message.ObjectDigests objectDigests() {
        return new Message.ObjectDigests(
                2,
                1,
                6,
                List.of(
                        new ObjectDigest(0, "", "", digest(4)),
                        new ObjectDigest(7, "shop.Account", "com.example.Account", digest(5)),
                        new ObjectDigest(9, "shop.Konto", "com.example.Kontø", Digest.ZERO)),
                1);
    }

    static Message.Signed signed() {
        return new Message.Signed(2, utf8("frame"), new byte[64]);
    }

    static ViewChange viewChange() {
        return new ViewChange(4, 2, 1, token(6), List.of(new Prepare(1, 0, token(6)), new CommitVote(1, 1, token(6))));
    }

    static Authenticated authenticated() {
        return new Authenticated(3, utf8("frame"), new byte[64]);
    }

    static Arbitrary<Message> messages() {
        List<Arbitrary<? extends Message>> all = List.of(
                requests().map(ClientRequest::new),
                replies().map(ClientReply::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), Arbitraries.integers())
                        .as(Redirect::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), batches(), Arbitraries.of(true, false))
                        .as(ExecuteBatch::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), tokens())
                        .as(BatchToken::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(Commit::new),
                Combinators.combine(
                                Arbitraries.longs(),
                                Arbitraries.longs(),
                                Arbitraries.longs(),
                                Arbitraries.of(true, false))
                        .as(Rollback::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(Heartbeat::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(JoinRequest::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), tokens(), deltas())
                        .as(StateTransfer::new),
                Combinators.combine(Arbitraries.longs(), tokens()).as(Verify::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.integers(), tokens())
                        .as(Prepare::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.integers(), tokens())
                        .as(CommitVote::new),
                Combinators.combine(Arbitraries.longs(), tokens(), Arbitraries.of(true, false))
                        .as(VerifyResponse::new),
                viewChanges(),
                Combinators.combine(
                                Arbitraries.longs(),
                                Arbitraries.integers(),
                                Arbitraries.oneOf(viewChanges(), authenticatedMessages())
                                        .list()
                                        .ofMaxSize(4),
                                tokens())
                        .as(NewView::new),
                Arbitraries.longs().map(Suspect::new),
                Combinators.combine(Arbitraries.integers(), Arbitraries.longs()).as(JoinQuery::new),
                Combinators.combine(Arbitraries.integers(), Arbitraries.longs()).as(Message.ViewQuery::new),
                Combinators.combine(Arbitraries.integers(), Arbitraries.longs(), Arbitraries.longs())
                        .as(Message.ViewReport::new),
                Combinators.combine(
                                Arbitraries.integers(),
                                Arbitraries.longs(),
                                Arbitraries.longs(),
                                Arbitraries.of(true, false),
                                Arbitraries.longs(),
                                tokens(),
                                Arbitraries.oneOf(evidence(), authenticatedMessages())
                                        .list()
                                        .ofMaxSize(4))
                        .as(JoinState::new),
                requests().map(ReadRequest::new),
                Combinators.combine(replies(), Arbitraries.of(true, false)).as(ReadReply::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), tokens())
                        .as(StateRequest::new),
                Combinators.combine(tokens().list().ofMinSize(1).ofMaxSize(5), deltas())
                        .as(ChainTransfer::new),
                authenticatedMessages(),
                signedMessages(),
                Combinators.combine(Arbitraries.longs(), Arbitraries.of(true, false), Arbitraries.longs())
                        .as(Message.FenceRequest::new),
                Combinators.combine(
                                Arbitraries.longs(),
                                Arbitraries.longs(),
                                Arbitraries.of(true, false),
                                Arbitraries.integers())
                        .as(Message.FenceAnswer::new),
                Arbitraries.longs().map(Message.FenceProbe::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.of(true, false), Arbitraries.longs())
                        .as(Message.FenceReport::new),
                objectDigestMessages());
        return Arbitraries.oneOf(all);
    }

    static Arbitrary<Message> objectDigestMessages() {
        Arbitrary<String> names = Arbitraries.strings().ofMaxLength(40);
        Arbitrary<ObjectDigest> entry = Combinators.combine(
                        Arbitraries.longs().between(0, 1L << 40), names, names, digests())
                .as(ObjectDigest::new);
        return Combinators.combine(
                        Arbitraries.longs(),
                        Arbitraries.longs(),
                        Arbitraries.longs().greaterOrEqual(1),
                        entry.list().ofMaxSize(6).uniqueElements(ObjectDigest::id),
                        Arbitraries.integers().between(0, 1000))
                .as((view, epoch, seq, entries, omitted) -> new Message.ObjectDigests(
                        view,
                        epoch,
                        seq,
                        entries.stream()
                                .sorted(java.util.Comparator.comparingLong(ObjectDigest::id))
                                .toList(),
                        omitted));
    }

    static Arbitrary<Message> evidence() {
        return Arbitraries.oneOf(
                Combinators.combine(Arbitraries.longs(), Arbitraries.integers(), tokens())
                        .as(Prepare::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.integers(), tokens())
                        .as(CommitVote::new));
    }

    static Arbitrary<Message> viewChanges() {
        return Combinators.combine(
                        Arbitraries.longs(),
                        Arbitraries.integers(),
                        Arbitraries.longs(),
                        tokens(),
                        Arbitraries.oneOf(evidence(), authenticatedMessages())
                                .list()
                                .ofMaxSize(4))
                .as(ViewChange::new);
    }

    static Arbitrary<Message> authenticatedMessages() {
        return Combinators.combine(
                        Arbitraries.integers(),
                        payloads(),
                        Arbitraries.integers().between(0, 4).map(n -> new byte[32 * n]))
                .as(Authenticated::new);
    }

    static Arbitrary<Message> signedMessages() {
        return Combinators.combine(Arbitraries.integers(), payloads(), Arbitraries.just(new byte[64]))
                .as(Message.Signed::new);
    }

    /** Mostly short, sometimes empty, now and then a few kilobytes. */
    static Arbitrary<byte[]> payloads() {
        Arbitrary<byte[]> small = Arbitraries.bytes().array(byte[].class).ofMaxSize(48);
        Arbitrary<byte[]> large =
                Arbitraries.bytes().array(byte[].class).ofMinSize(1024).ofMaxSize(8192);
        return Arbitraries.integers().between(0, 9).flatMap(pick -> pick == 0 ? large : small);
    }

    static Arbitrary<Request> requests() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs().greaterOrEqual(1), payloads())
                .as(Request::new);
    }

    static Arbitrary<Reply> replies() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), Arbitraries.of(true, false), payloads())
                .as(Reply::new);
    }

    static Arbitrary<Batch> batches() {
        return Combinators.combine(
                        Arbitraries.longs().greaterOrEqual(1),
                        Arbitraries.longs(),
                        Arbitraries.longs(),
                        requests().list().ofMaxSize(12))
                .as(Batch::new);
    }

    static Arbitrary<Digest> digests() {
        return Arbitraries.bytes().array(byte[].class).ofSize(Digest.LENGTH).map(Digest::of);
    }

    static Arbitrary<Token> tokens() {
        return Combinators.combine(Arbitraries.longs(), digests(), digests(), digests())
                .as(Token::of);
    }

    static Arbitrary<StateDelta> deltas() {
        return Combinators.combine(
                        Arbitraries.longs().between(-1, 1L << 40),
                        Arbitraries.longs().between(0, 1000),
                        payloads())
                .as((base, gap, payload) -> new StateDelta(base, base + gap, payload));
    }
}
