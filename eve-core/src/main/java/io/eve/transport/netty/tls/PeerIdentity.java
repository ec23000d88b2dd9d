package io.eve.transport.netty.tls;

import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Who a certificate says its holder is: node {@code node}, or a client allowed the client ids
 * {@code firstClient..lastClient}. A certificate names it twice: its subject CN and DNS name
 * ({@code eve-node-3}, {@code eve-client-<name>}) for people and TLS host checks, and a URI subject
 * alternative name the transport reads ({@code urn:eve:node:3}, {@code urn:eve:clients:<first>-<last>}).
 *
 * @param node the node id, or -1 for a client
 * @param firstClient a client's lowest id, or -1 for a node
 * @param lastClient a client's highest id, or -1 for a node
 * @param name the CN, for messages
 */
public record PeerIdentity(int node, int firstClient, int lastClient, String name) {
    private static final String NODE_URI = "urn:eve:node:";
    private static final String CLIENTS_URI = "urn:eve:clients:";
    private static final Pattern CLIENTS = Pattern.compile("(\\d{1,10})-(\\d{1,10})");
    private static final int URI_NAME = 6;

    /** Checks the fields. */
    public PeerIdentity {
        if (node >= 0 ? firstClient != -1 || lastClient != -1 : firstClient < 0 || lastClient < firstClient) {
            throw new IllegalArgumentException("an identity is a node (id >= 0) or a client id range, not node " + node
                    + " with clients " + firstClient + ".." + lastClient);
        }
    }

    /** Node {@code id}'s identity. */
    public static PeerIdentity node(int id) {
        if (id < 0) {
            throw new IllegalArgumentException("a node id is 0 or more, got " + id);
        }
        return new PeerIdentity(id, -1, -1, nodeName(id));
    }

    /** The identity of the client {@code name}, allowed the ids {@code first..last}. */
    public static PeerIdentity clients(String name, int first, int last) {
        return new PeerIdentity(-1, first, last, "eve-client-" + name);
    }

    /** The CN and DNS name of node {@code id}'s certificate: {@code eve-node-<id>}. */
    public static String nodeName(int id) {
        return "eve-node-" + id;
    }

    /** Whether this is a node's identity. */
    public boolean isNode() {
        return node >= 0;
    }

    /** The URI subject alternative name that carries this identity in a certificate. */
    public String uri() {
        return isNode() ? NODE_URI + node : CLIENTS_URI + firstClient + "-" + lastClient;
    }

    /**
     * Whether a connection authenticated as this identity may name itself {@code id} in its handshake: a
     * node only as itself, a client only as one of its ids.
     */
    public boolean allows(int id) {
        return isNode() ? id == node : id >= firstClient && id <= lastClient;
    }

    /**
     * The identity {@code certificate} carries (its one {@code urn:eve:} URI name).
     *
     * @throws IllegalArgumentException naming what is missing or malformed
     */
    public static PeerIdentity of(X509Certificate certificate) {
        String cn = certificate.getSubjectX500Principal().getName();
        if (cn.startsWith("CN=") && cn.indexOf(',') < 0) {
            cn = cn.substring(3);
        }
        Collection<List<?>> names;
        try {
            names = certificate.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            throw new IllegalArgumentException("the certificate of " + cn + " has unreadable alternative names", e);
        }
        PeerIdentity found = null;
        if (names != null) {
            for (List<?> entry : names) {
                if (!(entry.get(0) instanceof Integer type) || type != URI_NAME) {
                    continue;
                }
                String uri = String.valueOf(entry.get(1));
                PeerIdentity identity = parseUri(uri, cn);
                if (identity != null) {
                    if (found != null) {
                        throw new IllegalArgumentException("the certificate of " + cn + " names two Eve identities");
                    }
                    found = identity;
                }
            }
        }
        if (found == null) {
            throw new IllegalArgumentException("the certificate of " + cn + " names no Eve identity (a URI " + NODE_URI
                    + "<id> or " + CLIENTS_URI + "<first>-<last>; generate it with ./eve certs)");
        }
        return found;
    }

    /**
     * The identity the peer of {@code session} proved with its certificate (read once the handshake is done);
     * empty if it presented none, or one without an Eve identity.
     */
    public static Optional<PeerIdentity> ofPeer(SSLSession session) {
        try {
            Certificate[] chain = session.getPeerCertificates();
            return Optional.of(of((X509Certificate) chain[0]));
        } catch (SSLPeerUnverifiedException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static PeerIdentity parseUri(String uri, String cn) {
        try {
            if (uri.startsWith(NODE_URI)) {
                return node(Integer.parseInt(uri.substring(NODE_URI.length())));
            }
            if (uri.startsWith(CLIENTS_URI)) {
                Matcher matcher = CLIENTS.matcher(uri.substring(CLIENTS_URI.length()));
                if (matcher.matches()) {
                    return new PeerIdentity(
                            -1, Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)), cn);
                }
                throw new IllegalArgumentException("malformed client range");
            }
            return null;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the certificate of " + cn + " has a malformed Eve identity " + uri, e);
        }
    }

    @Override
    public String toString() {
        return isNode() ? name : name + " (client ids " + firstClient + ".." + lastClient + ")";
    }
}
