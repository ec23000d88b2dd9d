package io.eve.transport.netty.tls;

import io.eve.config.ConfigException;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Date;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;

/**
 * One process's TLS identity: its private key, its certificate and the cluster CA's certificate, read from
 * its folder of a bundle written by {@code ./eve certs} ({@code node-<id>/} with {@value #NODE_KEY},
 * {@value #NODE_CERT}, {@value #CA_CERT}; {@code client-<name>/} with {@value #CLIENT_KEY},
 * {@value #CLIENT_CERT}, {@value #CA_CERT}), and the Netty contexts of mutual TLS 1.3 on the JDK's provider
 * that it gives.
 *
 * <p>Loading refuses, with a message naming the file and the problem: a missing file; a private key its
 * group or others may read; a key that does not match the certificate; a certificate or CA expired or not
 * yet valid; a certificate not signed by the CA; a certificate for another identity than expected; any other
 * file in the folder (another node's secrets or the CA's key do not belong on this process).
 *
 * <p>Immutable and thread-safe. Its two contexts are built once and shared by every connection that uses
 * them (so the JDK's TLS session cache lets reconnections skip the certificate exchange).
 */
public final class TlsIdentity {
    /** A node's private key in its folder. */
    public static final String NODE_KEY = "node.key";
    /** A node's certificate in its folder. */
    public static final String NODE_CERT = "node.crt";
    /** A client's private key in its folder. */
    public static final String CLIENT_KEY = "client.key";
    /** A client's certificate in its folder. */
    public static final String CLIENT_CERT = "client.crt";
    /** The CA's certificate, in every folder. */
    public static final String CA_CERT = "ca.crt";
    /** The only protocol spoken. */
    public static final String PROTOCOL = "TLSv1.3";
    /** How long a TLS handshake may take (a loaded machine's cold JVM needs seconds for its first ones). */
    public static final long HANDSHAKE_TIMEOUT_MILLIS = 30_000;

    private final Path folder;
    private final PeerIdentity identity;
    private final PrivateKey key;
    private final X509Certificate certificate;
    private final X509Certificate ca;
    private volatile SslContext server;
    private volatile SslContext client;

    private TlsIdentity(
            Path folder, PeerIdentity identity, PrivateKey key, X509Certificate certificate, X509Certificate ca) {
        this.folder = folder;
        this.identity = identity;
        this.key = key;
        this.certificate = certificate;
        this.ca = ca;
    }

    /**
     * Node {@code node}'s identity from {@code folder} ({@code <tls.dir>/node-<id>}); the folder may also hold
     * the node's authenticator keys ({@code macs.properties}).
     *
     * @throws ConfigException naming the file and the problem
     */
    public static TlsIdentity loadNode(Path folder, int node) {
        String what = "node " + node;
        TlsIdentity loaded =
                load(folder, NODE_KEY, NODE_CERT, what, Set.of(NODE_KEY, NODE_CERT, CA_CERT, "macs.properties"));
        if (!loaded.identity.isNode() || loaded.identity.node() != node) {
            throw new ConfigException(folder.resolve(NODE_CERT) + " is the certificate of " + loaded.identity
                    + ", not of " + PeerIdentity.nodeName(node) + ": the bundle holds another process's secrets"
                    + " (give each node its own folder of ./eve certs)");
        }
        return loaded;
    }

    /**
     * A client's identity from {@code folder} ({@code <tls.dir>/client-<name>}).
     *
     * @throws ConfigException naming the file and the problem
     */
    public static TlsIdentity loadClient(Path folder) {
        TlsIdentity loaded = load(
                folder,
                CLIENT_KEY,
                CLIENT_CERT,
                "the client " + folder.getFileName(),
                Set.of(CLIENT_KEY, CLIENT_CERT, CA_CERT));
        if (loaded.identity.isNode()) {
            throw new ConfigException(folder.resolve(CLIENT_CERT) + " is the certificate of " + loaded.identity
                    + ", a node, not of a client: a client must never hold a node's secrets");
        }
        return loaded;
    }

    private static TlsIdentity load(Path folder, String keyName, String certName, String what, Set<String> allowed) {
        if (!Files.isDirectory(folder)) {
            throw new ConfigException("the TLS bundle of " + what + ", " + folder
                    + ", does not exist (generate one with ./eve certs --config <file> --out <dir>)");
        }
        Path keyFile = folder.resolve(keyName);
        Path certFile = folder.resolve(certName);
        Path caFile = folder.resolve(CA_CERT);
        for (Path file : new Path[] {keyFile, certFile, caFile}) {
            if (!Files.isRegularFile(file)) {
                throw new ConfigException(
                        "the TLS bundle of " + what + " lacks " + file + " (the file does not exist)");
            }
        }
        checkOnlyOwn(folder, what, allowed);
        checkOwnerOnly(keyFile, "the private key of " + what);
        X509Certificate ca = certificate(caFile);
        X509Certificate certificate = certificate(certFile);
        PrivateKey key = privateKey(keyFile);
        Date now = new Date();
        checkValid(caFile, ca, now);
        checkValid(certFile, certificate, now);
        try {
            ca.verify(ca.getPublicKey());
        } catch (GeneralSecurityException e) {
            throw new ConfigException(caFile + " is not a self-signed CA certificate: " + e.getMessage());
        }
        if (ca.getBasicConstraints() < 0) {
            throw new ConfigException(caFile + " is not a CA certificate (no CA basic constraint)");
        }
        try {
            certificate.verify(ca.getPublicKey());
        } catch (GeneralSecurityException e) {
            throw new ConfigException(certFile + " is not signed by the configured CA " + caFile + " ("
                    + ca.getSubjectX500Principal().getName() + "): " + e.getMessage());
        }
        checkKeyMatches(keyFile, key, certFile, certificate);
        PeerIdentity identity;
        try {
            identity = PeerIdentity.of(certificate);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(certFile + ": " + e.getMessage());
        }
        return new TlsIdentity(folder, identity, key, certificate, ca);
    }

    private static void checkOnlyOwn(Path folder, String what, Set<String> allowed) {
        Set<String> extra = new TreeSet<>();
        try (Stream<Path> files = Files.list(folder)) {
            files.map(file -> file.getFileName().toString())
                    .filter(name -> !allowed.contains(name))
                    .forEach(extra::add);
        } catch (IOException e) {
            throw new ConfigException("cannot list the TLS bundle " + folder + " of " + what + ": " + e.getMessage());
        }
        if (!extra.isEmpty()) {
            throw new ConfigException("the TLS bundle " + folder + " of " + what + " holds " + extra
                    + ", which are not " + what + "'s own: another node's secrets or the CA's key must never be"
                    + " on this process (it holds only " + new TreeSet<>(allowed) + ")");
        }
    }

    /**
     * Refuses a secret file its group or others may read, where the file system has POSIX permissions.
     *
     * @throws ConfigException naming the file, its permissions and the fix
     */
    public static void checkOwnerOnly(Path file, String what) {
        checkOwnerOnly(file, what, System.getProperty("user.name"));
    }

    /**
     * As {@link #checkOwnerOnly(Path, String)}, and the file must belong to {@code user} (the user the process
     * runs as): a secret someone else owns could be replaced or read by them.
     *
     * @throws ConfigException naming the file and its owner, or its permissions
     */
    public static void checkOwnerOnly(Path file, String what, String user) {
        try {
            if (!Files.getFileStore(file).supportsFileAttributeView("posix")) {
                return;
            }
            String owner = Files.getOwner(file).getName();
            if (user != null && !owner.equals(user)) {
                throw new ConfigException(what + ", " + file + ", is owned by " + owner + ", not by " + user
                        + ", the user this process runs as: a secret must belong to the process that uses it"
                        + " (chown " + user + " " + file + ")");
            }
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            for (PosixFilePermission permission : permissions) {
                if (permission.name().startsWith("GROUP_") || permission.name().startsWith("OTHERS_")) {
                    throw new ConfigException(what + ", " + file + ", has permissions "
                            + PosixFilePermissions.toString(permissions)
                            + ": a secret must be readable by its owner only (chmod 600 " + file + ")");
                }
            }
        } catch (IOException e) {
            throw new ConfigException("cannot read the permissions of " + what + ", " + file + ": " + e.getMessage());
        }
    }

    private static X509Certificate certificate(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        } catch (IOException | CertificateException | ClassCastException e) {
            throw new ConfigException(file + " is not a readable X.509 certificate (PEM): " + e.getMessage());
        }
    }

    private static PrivateKey privateKey(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new ConfigException("cannot read the private key " + file + ": " + e.getMessage());
        }
        String begin = "-----BEGIN PRIVATE KEY-----";
        String end = "-----END PRIVATE KEY-----";
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        if (from < 0 || to < from) {
            throw new ConfigException(
                    file + " is not an unencrypted PKCS#8 private key in PEM (expected " + begin + " ... " + end + ")");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file + " holds a private key that is not valid base64: " + e.getMessage());
        }
        for (String algorithm : new String[] {"EC", "RSA", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new ConfigException(file + " holds no EC, RSA or Ed25519 private key the JDK can read");
    }

    private static void checkValid(Path file, X509Certificate certificate, Date now) {
        try {
            certificate.checkValidity(now);
        } catch (CertificateExpiredException e) {
            throw new ConfigException(
                    file + " expired on " + certificate.getNotAfter().toInstant() + " (now " + now.toInstant()
                            + "): generate new certificates with ./eve certs");
        } catch (CertificateNotYetValidException e) {
            throw new ConfigException(
                    file + " is not valid before " + certificate.getNotBefore().toInstant() + " (now " + now.toInstant()
                            + "): check this machine's clock");
        }
    }

    private static void checkKeyMatches(Path keyFile, PrivateKey key, Path certFile, X509Certificate certificate) {
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            default -> key.getAlgorithm();
        };
        try {
            byte[] challenge = new byte[32];
            new SecureRandom().nextBytes(challenge);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(challenge);
            if (verifier.verify(signature)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // a key of another algorithm than the certificate's: does not match either
        }
        throw new ConfigException("the private key " + keyFile + " does not match the certificate " + certFile);
    }

    /** Who this identity is. */
    public PeerIdentity identity() {
        return identity;
    }

    /** The folder it was read from. */
    public Path folder() {
        return folder;
    }

    /** The certificate's end of validity. */
    public Date notAfter() {
        return certificate.getNotAfter();
    }

    /** The context for accepted connections: TLS 1.3 only, a certificate of this CA required of the peer. */
    public SslContext serverContext() {
        SslContext context = server;
        if (context == null) {
            synchronized (this) {
                if (server == null) {
                    server = buildServerContext();
                }
                context = server;
            }
        }
        return context;
    }

    private SslContext buildServerContext() {
        try {
            return SslContextBuilder.forServer(keyManagers())
                    .sslProvider(SslProvider.JDK)
                    .protocols(PROTOCOL)
                    .trustManager(new IdentityTrustManager(ca))
                    .clientAuth(ClientAuth.REQUIRE)
                    .build();
        } catch (SSLException e) {
            throw new IllegalStateException("the JDK's TLS provider refused " + this + ": " + e.getMessage(), e);
        }
    }

    /**
     * The context for dialed connections: TLS 1.3 only, presenting this identity; the peer must present a
     * certificate of this CA for the node dialed (the handler's peer host, {@link PeerIdentity#nodeName}).
     */
    public SslContext clientContext() {
        SslContext context = client;
        if (context == null) {
            synchronized (this) {
                if (client == null) {
                    client = buildClientContext();
                }
                context = client;
            }
        }
        return context;
    }

    private SslContext buildClientContext() {
        try {
            return SslContextBuilder.forClient()
                    .sslProvider(SslProvider.JDK)
                    .protocols(PROTOCOL)
                    .keyManager(keyManagers())
                    .trustManager(new IdentityTrustManager(ca))
                    .endpointIdentificationAlgorithm(null)
                    .build();
        } catch (SSLException e) {
            throw new IllegalStateException("the JDK's TLS provider refused " + this + ": " + e.getMessage(), e);
        }
    }

    /**
     * A handler for an accepted connection ({@link #serverContext()}) with a handshake deadline of {@value
     * #HANDSHAKE_TIMEOUT_MILLIS} ms; the JDK's handshake work (certificate checks, key exchange) runs on
     * {@code handshakes}, so that a burst of new connections does not hold the event loop of established ones.
     */
    public SslHandler newServerHandler(ByteBufAllocator allocator, Executor handshakes) {
        SslHandler handler = serverContext().newHandler(allocator, handshakes);
        handler.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS);
        return handler;
    }

    /**
     * A handler for a connection dialed to node {@code node} ({@link #clientContext()}), as {@link
     * #newServerHandler}: its peer host names the node, so only that node's certificate is accepted.
     */
    public SslHandler newClientHandler(ByteBufAllocator allocator, int node, int port, Executor handshakes) {
        SslHandler handler = clientContext().newHandler(allocator, PeerIdentity.nodeName(node), port, handshakes);
        handler.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS);
        return handler;
    }

    /** The JDK's key managers over this identity (so that Netty never re-parses the key itself). */
    private KeyManagerFactory keyManagers() {
        try {
            char[] password = new char[0];
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("eve", key, password, new Certificate[] {certificate});
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, password);
            return factory;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("the JDK cannot hold " + this + " in a key store: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TlsIdentity that && folder.equals(that.folder) && identity.equals(that.identity);
    }

    @Override
    public int hashCode() {
        return Objects.hash(folder, identity);
    }

    @Override
    public String toString() {
        return "TlsIdentity[" + identity + " from " + folder + "]";
    }
}
