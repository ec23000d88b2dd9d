package io.eve.server.security;

import io.eve.config.ClusterConfig;
import io.eve.config.ConfigException;
import io.eve.config.NodeAddress;
import io.eve.transport.netty.tls.PeerIdentity;
import io.eve.transport.netty.tls.TlsIdentity;
import io.eve.verify.auth.MacKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.stream.Stream;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a cluster's bundle (decision 0021): a fresh CA (ECDSA P-256), and for every node a folder
 * {@code node-<id>/} with its own private key ({@value TlsIdentity#NODE_KEY}, owner-only), its certificate
 * ({@code CN=eve-node-<id>}, {@value TlsIdentity#NODE_CERT}), the CA's certificate and, in the bft profile,
 * its authenticator keys ({@value MacKeys#NODE_FILE}: its pairs and its self key, nothing of others); for
 * every client identity a folder {@code client-<c>/} with its key, its certificate (granting a range of
 * client ids) and the CA's. The CA's private key is used once and never written: adding a node or
 * rotating means a new bundle for the whole cluster.
 *
 * <p>Certificates are built with BouncyCastle's certificate builder and signed by the JDK's own provider;
 * no BouncyCastle security provider is registered, and nothing of it runs at run time (TLS is the JDK's).
 */
public final class Bundles {
    private static final Logger LOG = LoggerFactory.getLogger(Bundles.class);
    /** The lowest client id the first client identity is granted. */
    public static final int FIRST_CLIENT_ID = 1_000_000;
    /** How many client ids each client identity is granted. */
    public static final int IDS_PER_CLIENT = 1 << 24;
    /** The most client identities one bundle holds (their id ranges must fit in an int). */
    public static final int MAX_CLIENTS = 100;

    private static final String SIGNATURE = "SHA256withECDSA";

    private final SecureRandom random = new SecureRandom();
    private final Instant notBefore;
    private final Instant notAfter;

    /** Certificates valid from {@code notBefore} to {@code notAfter}. */
    public Bundles(Instant notBefore, Instant notAfter) {
        if (!notAfter.isAfter(notBefore)) {
            throw new IllegalArgumentException("validity ends " + notAfter + " before it starts " + notBefore);
        }
        this.notBefore = notBefore;
        this.notAfter = notAfter;
    }

    /** Certificates valid from an hour ago (clock skew) for {@code validity}. */
    public static Bundles validFor(Duration validity) {
        Instant now = Instant.now();
        return new Bundles(now.minus(Duration.ofHours(1)), now.plus(validity));
    }

    /** A key pair and its certificate. */
    public record Issued(KeyPair keys, X509Certificate certificate) {}

    /** A fresh ECDSA P-256 key pair. */
    public KeyPair keyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), random);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java 17 platform has EC P-256", e);
        }
    }

    /** A self-signed CA named {@code name}. */
    public Issued ca(String name) {
        KeyPair keys = keyPair();
        X500Name subject = new X500Name("CN=" + name);
        JcaX509v3CertificateBuilder builder = builder(subject, subject, keys);
        try {
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        } catch (CertIOException e) {
            throw new IllegalStateException("cannot encode a CA extension", e);
        }
        return new Issued(keys, sign(builder, keys.getPrivate()));
    }

    /** A certificate for {@code identity} with a fresh key, signed by {@code ca}. */
    public Issued issue(Issued ca, PeerIdentity identity) {
        return issue(ca, identity, keyPair());
    }

    /** A certificate for {@code identity} and {@code keys}, signed by {@code ca}. */
    public Issued issue(Issued ca, PeerIdentity identity, KeyPair keys) {
        X500Name issuer =
                X500Name.getInstance(ca.certificate().getSubjectX500Principal().getEncoded());
        JcaX509v3CertificateBuilder builder = builder(issuer, new X500Name("CN=" + identity.name()), keys);
        try {
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            builder.addExtension(
                    Extension.extendedKeyUsage,
                    false,
                    identity.isNode()
                            ? new ExtendedKeyUsage(
                                    new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth})
                            : new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.dNSName, identity.name()),
                new GeneralName(GeneralName.uniformResourceIdentifier, identity.uri())
            }));
        } catch (CertIOException e) {
            throw new IllegalStateException("cannot encode a certificate extension", e);
        }
        return new Issued(keys, sign(builder, ca.keys().getPrivate()));
    }

    private JcaX509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        return new JcaX509v3CertificateBuilder(
                issuer,
                new BigInteger(127, random).add(BigInteger.ONE),
                Date.from(notBefore),
                Date.from(notAfter),
                subject,
                keys.getPublic());
    }

    private static X509Certificate sign(JcaX509v3CertificateBuilder builder, PrivateKey key) {
        try {
            return new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE).build(key)));
        } catch (OperatorCreationException | java.security.cert.CertificateException e) {
            throw new IllegalStateException("cannot sign a certificate with " + SIGNATURE, e);
        }
    }

    /**
     * Writes the bundle of {@code cluster} into {@code out}, which must not exist or be empty: every node's
     * folder (with authenticator keys when {@code macs}) and {@code clients} client folders.
     *
     * @return what was written, one line per folder
     */
    public List<String> write(ClusterConfig cluster, Path out, int clients, boolean macs) throws IOException {
        if (clients < 0 || clients > MAX_CLIENTS) {
            throw new ConfigException("--clients = " + clients + " must be 0 to " + MAX_CLIENTS);
        }
        if (Files.exists(out)) {
            try (Stream<Path> entries = Files.list(out)) {
                if (entries.findAny().isPresent()) {
                    throw new ConfigException(out + " exists and is not empty: a bundle is written into a new folder"
                            + " (nothing is overwritten)");
                }
            }
        }
        Files.createDirectories(out);
        List<String> written = new ArrayList<>();
        Issued ca = ca("eve-cluster-ca-" + Long.toHexString(random.nextLong()));
        writeText(out.resolve(TlsIdentity.CA_CERT), pem("CERTIFICATE", encoded(ca.certificate())), false);
        int[] ids = cluster.nodes().stream().mapToInt(NodeAddress::id).toArray();
        MacKeys keys = macs ? MacKeys.generate(ids, random) : null;
        if (keys != null) {
            keys.writeNodeFiles(out);
        }
        for (int id : ids) {
            Path folder = out.resolve("node-" + id);
            writeIdentity(folder, TlsIdentity.NODE_KEY, TlsIdentity.NODE_CERT, issue(ca, PeerIdentity.node(id)), ca);
            written.add(folder + ": " + PeerIdentity.nodeName(id) + (keys != null ? ", authenticator keys" : ""));
        }
        for (int c = 0; c < clients; c++) {
            int first = FIRST_CLIENT_ID + c * IDS_PER_CLIENT;
            PeerIdentity identity = PeerIdentity.clients(Integer.toString(c), first, first + IDS_PER_CLIENT - 1);
            Path folder = out.resolve("client-" + c);
            writeIdentity(folder, TlsIdentity.CLIENT_KEY, TlsIdentity.CLIENT_CERT, issue(ca, identity), ca);
            written.add(folder + ": " + identity);
        }
        return written;
    }

    /** Writes one identity's folder: its key (owner-only), its certificate and the CA's certificate. */
    public static void writeIdentity(Path folder, String keyName, String certName, Issued issued, Issued ca)
            throws IOException {
        Files.createDirectories(folder);
        writeText(
                folder.resolve(keyName),
                pem("PRIVATE KEY", issued.keys().getPrivate().getEncoded()),
                true);
        writeText(folder.resolve(certName), pem("CERTIFICATE", encoded(issued.certificate())), false);
        writeText(folder.resolve(TlsIdentity.CA_CERT), pem("CERTIFICATE", encoded(ca.certificate())), false);
    }

    private static byte[] encoded(X509Certificate certificate) {
        try {
            return certificate.getEncoded();
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException("a certificate just built encodes", e);
        }
    }

    /** {@code der} as PEM of {@code type}. */
    public static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static void writeText(Path file, String text, boolean secret) throws IOException {
        if (secret && FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.createFile(file);
        }
        Files.writeString(file, text, StandardCharsets.US_ASCII);
    }

    /**
     * The shipped demo (tls.demo = on): when {@code cluster}'s {@code tls.dir} does not exist, writes a bundle
     * there (one client identity), for a cluster on this machine only; then, at every start, says loudly that
     * the material is demo-only. Replicas starting together race safely: each writes a folder of its own and
     * moves it into place; the first wins, the others use it.
     *
     * @throws ConfigException if the cluster's nodes are not all on this machine
     */
    public static void prepareDemo(ClusterConfig cluster) {
        if (!cluster.tls().demo()) {
            return;
        }
        Path dir = cluster.tls().dir();
        for (NodeAddress node : cluster.nodes()) {
            if (!isLoopback(node.host())) {
                throw new ConfigException("tls.demo = on generates localhost demo keys, but node " + node.id()
                        + " is at " + node.host() + ": generate a real bundle with ./eve certs --config <file> --out"
                        + " <dir> and remove tls.demo");
            }
        }
        if (!Files.exists(dir)) {
            Path staging = dir.resolveSibling(dir.getFileName() + ".new-"
                    + ProcessHandle.current().pid() + "-" + Long.toHexString(System.nanoTime()));
            try {
                validFor(Duration.ofDays(365))
                        .write(cluster, staging, 1, cluster.profile().quorum() && cluster.r() >= 1);
                try {
                    Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
                    LOG.warn("DEMO KEYS: generated localhost demo certificates and keys in {}", dir);
                } catch (IOException e) {
                    if (!Files.isDirectory(dir)) {
                        throw e;
                    }
                    deleteTree(staging); // another replica of this demo was first (the rename found it there)
                }
            } catch (IOException e) {
                deleteQuietly(staging);
                throw new UncheckedIOException("cannot generate the demo bundle in " + dir + ": " + e.getMessage(), e);
            }
        }
        LOG.warn(
                "DEMO KEYS ONLY: this cluster runs on localhost demo certificates and keys generated into {}"
                        + " (tls.demo = on). They protect nothing beyond this machine's user: for a real cluster generate a"
                        + " bundle with ./eve certs --config <file> --out <dir>, copy each node only its own node-<id>"
                        + " folder, and remove tls.demo",
                dir);
    }

    private static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static void deleteQuietly(Path tree) {
        try {
            deleteTree(tree);
        } catch (IOException e) {
            LOG.debug("cannot remove {}: {}", tree, e.toString());
        }
    }

    private static void deleteTree(Path tree) throws IOException {
        if (!Files.exists(tree)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(tree)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
