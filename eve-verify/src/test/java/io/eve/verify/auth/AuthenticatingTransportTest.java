package io.eve.verify.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Request;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.protocol.Message.Authenticated;
import io.eve.protocol.Message.ClientRequest;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Suspect;
import io.eve.transport.LocalNetwork;
import io.eve.transport.Transport;
import io.eve.transport.wire.FrameCodec;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class AuthenticatingTransportTest {
    static final FrameCodec CODEC = new FrameCodec(1 << 20);
    /** MAC-only keys: links without signed evidence (SignedEvidenceTest covers signed evidence). */
    static final MacKeys KEYS = MacKeys.insecureForTests(1, 0, 1, 2).withoutSigning();

    static final int CLIENT = 100;

    record Received(int from, Message message) {}

    final LocalNetwork network = new LocalNetwork();
    final BlockingQueue<Received> inbox = new LinkedBlockingQueue<>();

    @AfterEach
    void close() {
        network.close();
    }

    static Envelopes envelopes(int self) {
        return new Envelopes(new Authenticator(KEYS, self), CODEC);
    }

    AuthenticatingTransport node(int id) {
        return new AuthenticatingTransport(network.join(id), envelopes(id));
    }

    Received next() throws InterruptedException {
        Received received = inbox.poll(5, TimeUnit.SECONDS);
        assertThat(received).as("a message within 5 s").isNotNull();
        return received;
    }

    static Token token(long seq) {
        return Token.of(seq, Digest.ZERO, Digest.ZERO, Digest.ZERO);
    }

    @Test
    void shouldDeliverAuthenticatedMessagesInOrderUnwrapped() throws InterruptedException {
        AuthenticatingTransport sender = node(0);
        AuthenticatingTransport receiver = node(1);
        receiver.start((from, message) -> inbox.add(new Received(from, message)));
        for (int view = 1; view <= 50; view++) {
            sender.send(1, new Suspect(view));
        }
        for (int view = 1; view <= 50; view++) {
            assertThat(next()).isEqualTo(new Received(0, new Suspect(view)));
        }
        assertThat(receiver.rejected()).isZero();
    }

    @Test
    void shouldPutAuthenticatorsOnTheWireAndKeepEvidenceSealed() throws InterruptedException {
        BlockingQueue<Message> wire = new LinkedBlockingQueue<>();
        network.setFirewall((from, to, message) -> {
            wire.add(message);
            return message;
        });
        AuthenticatingTransport sender = node(0);
        AuthenticatingTransport receiver = node(1);
        receiver.start((from, message) -> inbox.add(new Received(from, message)));
        Prepare prepare = new Prepare(3, 0, token(4));
        sender.send(1, prepare);

        assertThat(wire.poll(5, TimeUnit.SECONDS)).isInstanceOf(Authenticated.class);
        Message delivered = next().message();
        assertThat(delivered).isInstanceOf(Authenticated.class);
        assertThat(new MacEvidence(envelopes(1)).open(delivered).message()).isEqualTo(prepare);
        // Forwarded to process 2, the same envelope checks out there too.
        assertThat(new MacEvidence(envelopes(2)).open(delivered).origin()).isZero();
    }

    @Test
    void shouldDropAndCountForgedTamperedAndUnsealedMessages() throws InterruptedException {
        AuthenticatingTransport honest = node(0);
        AuthenticatingTransport receiver = node(1);
        Transport byzantine = network.join(2); // holds its own keys, but not those of 0 and 1
        Transport client = network.join(CLIENT);
        receiver.start((from, message) -> inbox.add(new Received(from, message)));
        Envelopes lies = envelopes(2);

        Authenticated own = lies.seal(new Suspect(1));
        byzantine.send(1, new Authenticated(0, own.frame(), own.tags())); // claims origin 0
        byzantine.send(1, new Suspect(2)); // unsealed from a process with keys
        byte[] tampered = own.frame().clone();
        tampered[tampered.length - 5] ^= 1;
        byzantine.send(1, new Authenticated(2, tampered, own.tags())); // frame changed after tagging
        byte[] badTags = own.tags().clone();
        badTags[32] ^= 1;
        byzantine.send(1, new Authenticated(2, own.frame(), badTags)); // tag for process 1 changed
        byzantine.send(
                1,
                new Authenticated(
                        2, new byte[] {1, 2, 3}, lies.seal(new Suspect(3)).tags()));
        Authenticated garbage =
                new Authenticated(2, new byte[] {1, 2, 3}, new Authenticator(KEYS, 2).tags(new byte[] {1, 2, 3}));
        byzantine.send(1, garbage); // right tag, undecodable frame
        client.send(1, new Suspect(4)); // clients may only send requests
        honest.send(1, new Suspect(5));

        assertThat(next()).isEqualTo(new Received(0, new Suspect(5)));
        assertThat(receiver.rejected()).isEqualTo(7);
        assertThat(inbox).isEmpty();
    }

    @Test
    void shouldPassClientRequestsAndRepliesPlain() throws InterruptedException {
        BlockingQueue<Message> wire = new LinkedBlockingQueue<>();
        network.setFirewall((from, to, message) -> {
            if (to == CLIENT) {
                wire.add(message);
            }
            return message;
        });
        AuthenticatingTransport replica = node(0);
        Transport client = network.join(CLIENT);
        replica.start((from, message) -> inbox.add(new Received(from, message)));
        ClientRequest request = new ClientRequest(new Request(CLIENT, 1, new byte[] {42}));
        client.send(0, request);
        assertThat(next()).isEqualTo(new Received(CLIENT, request));
        replica.send(CLIENT, new Suspect(1));
        assertThat(wire.poll(5, TimeUnit.SECONDS)).isEqualTo(new Suspect(1));
    }
}
