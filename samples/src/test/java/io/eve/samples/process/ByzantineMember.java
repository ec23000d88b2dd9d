package io.eve.samples.process;

import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.protocol.Message.Authenticated;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Signed;
import io.eve.protocol.Message.ViewChange;
import io.eve.transport.netty.NettyTransport;
import io.eve.transport.netty.tls.TlsIdentity;
import io.eve.transport.wire.FrameCodec;
import io.eve.verify.auth.Authenticator;
import io.eve.verify.auth.Envelopes;
import io.eve.verify.auth.MacKeys;
import io.eve.verify.auth.SigningKeys;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A Byzantine member of a bft cluster holding exactly what a real member holds: its own bundle folder (its TLS
 * key and certificate, the CA's certificate, and its own authenticator and signing keys), nothing of the others
 * (docs/quorum.md, "Signed evidence"; issue 20). It runs the product's own transport ({@link NettyTransport} with
 * mutual TLS as its node) and the product's {@link Envelopes} built from its own keys as a bft node over mutual TLS
 * on TCP builds them ({@code io.eve.server.Authenticators}: no tags on the links, decision 0048), so what it says in
 * its own name passes every check; what it claims others said, and the links it opens in their names, must not. It
 * never takes part in agreement honestly: the three correct verifiers are the only quorum.
 *
 * <p>Attacks: view changes whose certificate is made of other verifiers' {@code Prepare}s for a token nobody
 * prepared (signed with its own key under their names, their genuine signatures spliced onto the forged frames,
 * or with its own MACs only); signed pieces and tagged envelopes on its own link claiming another origin; and
 * connections over TLS with its own certificate, or plain TCP, that claim another node's id or a client's.
 *
 * <p>Thread-safe: the transport's threads deliver what it hears, the test thread attacks.
 */
final class ByzantineMember implements AutoCloseable {
    private static final int HANDSHAKE_MAGIC = 0x45564548;
    private static final int CLOSE_WAIT_MILLIS = 20_000;

    private final int self;
    private final int[] verifiers;
    private final Path folder;
    private final FrameCodec codec;
    private final Envelopes envelopes;
    /** Its own keys as a node on tagged links uses them: for envelopes, which these links do not carry. */
    private final Envelopes tagged;

    private final SigningKeys signing;
    private final NettyTransport transport;
    /** The latest genuine signed {@code Prepare} heard from each other verifier, for splicing signatures. */
    private final Map<Integer, Signed> heardPrepares = new ConcurrentHashMap<>();

    private final AtomicLong forgedChanges = new AtomicLong();

    private ByzantineMember(
            int self,
            int[] verifiers,
            Path folder,
            FrameCodec codec,
            Envelopes envelopes,
            Envelopes tagged,
            SigningKeys signing,
            NettyTransport transport) {
        this.self = self;
        this.verifiers = verifiers.clone();
        this.folder = folder;
        this.codec = codec;
        this.envelopes = envelopes;
        this.tagged = tagged;
        this.signing = signing;
        this.transport = transport;
    }

    /**
     * Node {@code self} of a cluster of {@code ids}, from its bundle folder {@code folder} (as {@code ./eve certs}
     * writes it: {@code node.key}, {@code node.crt}, {@code ca.crt}, {@code macs.properties}), listening on
     * {@code listen}, its peers at {@code peers}.
     */
    static ByzantineMember start(
            int self,
            int[] ids,
            Path folder,
            InetSocketAddress listen,
            Map<Integer, InetSocketAddress> peers,
            int maxFrameBytes) {
        FrameCodec codec = new FrameCodec(maxFrameBytes);
        MacKeys keys = MacKeys.loadNode(folder.resolve("macs.properties"), ids, self);
        Envelopes envelopes = Envelopes.onAuthenticatedLinks(new Authenticator(keys, self), codec);
        Envelopes tagged = new Envelopes(new Authenticator(keys, self), codec);
        NettyTransport transport = NettyTransport.builder()
                .self(self)
                .listen(listen)
                .peers(peers)
                .maxFrameBytes(maxFrameBytes)
                .tls(TlsIdentity.loadNode(folder, self))
                .build();
        ByzantineMember member =
                new ByzantineMember(self, ids, folder, codec, envelopes, tagged, keys.signing(), transport);
        transport.start(member::onMessage);
        return member;
    }

    private void onMessage(int from, Message message) {
        Envelopes.Inbound inbound = envelopes.inbound(from, message);
        if (inbound.accepted()
                && inbound.message() instanceof Signed piece
                && codec.decode(piece.frame()) instanceof Prepare) {
            heardPrepares.put(piece.origin(), piece);
        }
    }

    /** Verifiers whose genuine signed {@code Prepare}s it heard (and can splice signatures from). */
    int preparesHeard() {
        return heardPrepares.size();
    }

    /** Forged view changes sent so far. */
    long forgedChanges() {
        return forgedChanges.get();
    }

    /**
     * Sends every other verifier a view change to {@code newView}, signed in its own name (so it passes the link),
     * whose certificate claims that every verifier prepared {@code invented} in view {@code newView - 1}: the
     * others' {@code Prepare}s made in the way {@code variant} (0, 1 or 2) picks, its own genuinely signed.
     */
    void sendForgedViewChange(long newView, Token invented, int variant) {
        long certificateView = newView - 1;
        List<Message> evidence = new ArrayList<>();
        for (int verifier : verifiers) {
            Prepare prepare = new Prepare(certificateView, verifier, invented);
            evidence.add(verifier == self ? envelopes.evidence().seal(prepare) : forgedPiece(prepare, variant));
        }
        Message change = envelopes.evidence().seal(new ViewChange(newView, self, certificateView, invented, evidence));
        for (int verifier : verifiers) {
            if (verifier != self) {
                transport.send(verifier, envelopes.outbound(verifier, change));
            }
        }
        forgedChanges.incrementAndGet();
    }

    /** Another verifier's {@code Prepare} as a member holding only its own keys can make it. */
    private Message forgedPiece(Prepare prepare, int variant) {
        byte[] frame = codec.encode(prepare);
        Signed own = (Signed) envelopes.evidence().seal(new Prepare(prepare.view(), self, prepare.token()));
        Signed heard = heardPrepares.get(prepare.verifier());
        if (variant == 1 && heard != null) {
            return new Signed(prepare.verifier(), frame, heard.signature()); // a genuine signature, another frame
        }
        if (variant == 2) {
            Authenticated macs = tagged.seal(prepare); // its own MACs, under the victim's name
            return new Authenticated(prepare.verifier(), macs.frame(), macs.tags());
        }
        return new Signed(prepare.verifier(), frame, own.signature()); // its own signature, the victim's name
    }

    /** Sends {@code message} to {@code to} on its own authenticated link, sealed in its own name. */
    void sendOwn(int to, Message message) {
        Message form = io.eve.verify.quorum.Evidence.isEvidence(message)
                ? envelopes.evidence().seal(message)
                : message;
        transport.send(to, envelopes.outbound(to, form));
    }

    /**
     * Sends {@code message} to {@code to} on its own link as {@code origin}'s: signed with its own key under
     * {@code origin}'s name if {@code signed}, else in a tagged envelope claiming {@code origin} (its own tags).
     */
    void sendClaiming(int to, int origin, Message message, boolean signed) {
        if (signed) {
            byte[] frame = codec.encode(message);
            transport.send(to, new Signed(origin, frame, signing.sign(self, frame)));
        } else {
            Authenticated own = tagged.seal(message);
            transport.send(to, new Authenticated(origin, own.frame(), own.tags()));
        }
    }

    /**
     * Opens a TLS connection to {@code target} with its own certificate, names itself {@code claimed} and sends
     * {@code messages} sealed in {@code claimed}'s name with its own tags; true if the replica closed the
     * connection.
     */
    boolean claimOverTls(InetSocketAddress target, int claimed, List<Message> messages) throws Exception {
        try (SSLSocket socket = connectTls(target)) {
            writeOnce(socket.getOutputStream(), hello(claimed), frames(claimed, messages));
            return closedByPeer(socket);
        }
    }

    /** As {@link #claimOverTls}, over plain TCP (no TLS at all); true if the replica closed the connection. */
    boolean claimOverPlainTcp(InetSocketAddress target, int claimed, List<Message> messages) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(target, 5_000);
            socket.setSoTimeout(CLOSE_WAIT_MILLIS);
            writeOnce(socket.getOutputStream(), hello(claimed), frames(claimed, messages));
            return closedByPeer(socket);
        }
    }

    private byte[] frames(int claimed, List<Message> messages) {
        List<byte[]> frames = new ArrayList<>();
        for (Message message : messages) {
            Authenticated own = envelopes.seal(message);
            frames.add(codec.encode(new Authenticated(claimed, own.frame(), own.tags())));
        }
        int length = frames.stream().mapToInt(frame -> frame.length).sum();
        ByteBuffer all = ByteBuffer.allocate(length);
        frames.forEach(all::put);
        return all.array();
    }

    private static byte[] hello(int id) {
        return ByteBuffer.allocate(8).putInt(HANDSHAKE_MAGIC).putInt(id).array();
    }

    /** One write, so the replica cannot close the link between two parts and turn the second into a broken pipe. */
    private static void writeOnce(OutputStream out, byte[] first, byte[] second) throws IOException {
        byte[] all = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        out.write(all);
        out.flush();
    }

    private static boolean closedByPeer(Socket socket) {
        try {
            InputStream in = socket.getInputStream();
            byte[] sink = new byte[1024];
            while (in.read(sink) >= 0) {
                // Whatever the replica sends before it closes is skipped.
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException resetOrAlert) {
            return true; // a reset, or the TLS layer's alert: closed either way
        }
    }

    /** A TLS 1.3 connection (handshake done) presenting this member's own certificate from its bundle folder. */
    private SSLSocket connectTls(InetSocketAddress target) throws Exception {
        char[] password = "byzantine".toCharArray();
        KeyStore own = KeyStore.getInstance("PKCS12");
        own.load(null, null);
        own.setKeyEntry("self", privateKey(folder.resolve("node.key")), password, new Certificate[] {
            certificate(folder.resolve("node.crt"))
        });
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(own, password);
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("ca", certificate(folder.resolve("ca.crt")));
        TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        context.init(keyManagers.getKeyManagers(), trust.getTrustManagers(), null);
        SSLSocket socket =
                (SSLSocket) context.getSocketFactory().createSocket(target.getHostString(), target.getPort());
        socket.setEnabledProtocols(new String[] {"TLSv1.3"});
        socket.setSoTimeout(CLOSE_WAIT_MILLIS);
        socket.startHandshake();
        return socket;
    }

    private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        String body = Files.readString(file, StandardCharsets.US_ASCII)
                .replace("-----BEGIN PRIVATE KEY-----", "")
                .replace("-----END PRIVATE KEY-----", "")
                .replaceAll("\\s", "");
        return KeyFactory.getInstance("EC")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
    }

    private static Certificate certificate(Path file) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(file)) {
            return CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /** A token of batch {@code seq} that no replica computed, chained to nothing anyone holds. */
    static Token invented(long seq) {
        byte[] bytes = new byte[Digest.LENGTH];
        Arrays.fill(bytes, (byte) 0x5a);
        return Token.of(seq, Digest.of(bytes), Digest.of(bytes), Digest.ZERO);
    }

    @Override
    public void close() {
        transport.close();
    }
}
