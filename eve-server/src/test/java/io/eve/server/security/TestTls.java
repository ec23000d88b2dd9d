package io.eve.server.security;

import io.eve.config.ClusterConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/** Helpers of the TLS tests: a small cluster, the JDK's own TLS sockets with a bundle's identity, waiting. */
final class TestTls {
    private TestTls() {}

    /** A crash cluster of nodes 0, 1, 2 (ports unused: transports bind ephemeral ports). */
    static ClusterConfig cluster() {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader("profile=crash\nnodes=0@127.0.0.1:1, 1@127.0.0.1:2, 2@127.0.0.1:3\n"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return ClusterConfig.parse(properties);
    }

    static PrivateKey key(Path file) throws Exception {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        String body = text.replace("-----BEGIN PRIVATE KEY-----", "")
                .replace("-----END PRIVATE KEY-----", "")
                .replaceAll("\\s", "");
        return KeyFactory.getInstance("EC")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
    }

    static X509Certificate certificate(Path file) throws Exception {
        try (InputStream in = Files.newInputStream(file)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /**
     * A TLS 1.3 socket to {@code to} (handshake done) presenting the identity in {@code folder} ({@code
     * keyName}, {@code certName}, trusting its {@code ca.crt}).
     */
    static SSLSocket connect(Path folder, String keyName, String certName, InetSocketAddress to) throws Exception {
        char[] password = "test".toCharArray();
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry(
                "me", key(folder.resolve(keyName)), password, new Certificate[] {certificate(folder.resolve(certName))
                });
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, password);
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("ca", certificate(folder.resolve("ca.crt")));
        TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        context.init(keyManagers.getKeyManagers(), trust.getTrustManagers(), null);
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(to.getHostString(), to.getPort());
        socket.setEnabledProtocols(new String[] {"TLSv1.3"});
        socket.setSoTimeout(20_000);
        socket.startHandshake();
        return socket;
    }

    /** Waits up to 20 s for {@code condition}; false if it never held. */
    static boolean await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }
}
