package io.eve.rdma;

import io.eve.transport.netty.tls.PeerIdentity;
import io.eve.transport.netty.tls.TlsIdentity;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A cluster's TLS bundle for tests, laid out as {@code ./eve certs} writes it (eve-server's {@code Bundles},
 * which eve-rdma cannot depend on): a fresh CA and, for each node, {@code node-<id>/} with its owner-only key,
 * its certificate ({@code CN=eve-node-<id>}, URI {@code urn:eve:node:<id>}) and the CA's; and one client
 * identity {@code client-0/} granted the ids 1000000 to 1000999. Read back by {@link TlsIdentity}'s own loader.
 */
public final class TlsBundle {
    private static final String SIGNATURE = "SHA256withECDSA";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path dir;

    private TlsBundle(Path dir) {
        this.dir = dir;
    }

    /** Writes the bundle of nodes {@code 0..nodes-1} and one client into {@code dir}. */
    public static TlsBundle write(Path dir, int nodes) throws Exception {
        Instant now = Instant.now();
        KeyPair caKeys = keyPair();
        X500Name caName = new X500Name("CN=eve-test-ca");
        JcaX509v3CertificateBuilder ca = builder(caName, caName, caKeys, now);
        ca.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
        ca.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        X509Certificate caCertificate = sign(ca, caKeys);
        for (int id = 0; id < nodes; id++) {
            writeIdentity(
                    dir.resolve("node-" + id),
                    TlsIdentity.NODE_KEY,
                    TlsIdentity.NODE_CERT,
                    PeerIdentity.node(id),
                    caName,
                    caKeys,
                    caCertificate,
                    now);
        }
        writeIdentity(
                dir.resolve("client-0"),
                TlsIdentity.CLIENT_KEY,
                TlsIdentity.CLIENT_CERT,
                PeerIdentity.clients("0", 1_000_000, 1_000_999),
                caName,
                caKeys,
                caCertificate,
                now);
        return new TlsBundle(dir);
    }

    /** Node {@code id}'s identity, loaded and checked as a replica loads it. */
    public TlsIdentity node(int id) {
        return TlsIdentity.loadNode(dir.resolve("node-" + id), id);
    }

    /** The client identity, granted no node id. */
    public TlsIdentity client() {
        return TlsIdentity.loadClient(dir.resolve("client-0"));
    }

    private static void writeIdentity(
            Path folder,
            String keyName,
            String certName,
            PeerIdentity identity,
            X500Name caName,
            KeyPair caKeys,
            X509Certificate ca,
            Instant now)
            throws Exception {
        KeyPair keys = keyPair();
        JcaX509v3CertificateBuilder builder = builder(caName, new X500Name("CN=" + identity.name()), keys, now);
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(new KeyPurposeId[] {
            KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth
        }));
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
            new GeneralName(GeneralName.dNSName, identity.name()),
            new GeneralName(GeneralName.uniformResourceIdentifier, identity.uri())
        }));
        X509Certificate certificate = sign(builder, caKeys);
        Files.createDirectories(folder);
        Path key = folder.resolve(keyName);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(key, pem("PRIVATE KEY", keys.getPrivate().getEncoded()), StandardCharsets.US_ASCII);
        Files.writeString(folder.resolve(certName), pem("CERTIFICATE", certificate.getEncoded()));
        Files.writeString(folder.resolve(TlsIdentity.CA_CERT), pem("CERTIFICATE", ca.getEncoded()));
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return generator.generateKeyPair();
    }

    private static JcaX509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys, Instant now) {
        return new JcaX509v3CertificateBuilder(
                issuer,
                new BigInteger(127, RANDOM).add(BigInteger.ONE),
                Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(1))),
                subject,
                keys.getPublic());
    }

    private static X509Certificate sign(JcaX509v3CertificateBuilder builder, KeyPair issuer) throws Exception {
        return new JcaX509CertificateConverter()
                .getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE).build(issuer.getPrivate())));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
