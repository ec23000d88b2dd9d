package io.eve.transport.netty.tls;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trusts a peer whose certificate chains to the cluster's CA (the JDK's PKIX checks: signature, validity,
 * key usage) and carries an Eve identity ({@link PeerIdentity}); when this side dialed a node (the engine's
 * peer host is {@code eve-node-<id>}), only that node's certificate. Which id a peer may then claim is the
 * transport's check.
 */
final class IdentityTrustManager extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager pkix;

    IdentityTrustManager(X509Certificate ca) {
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            store.setCertificateEntry("eve-ca", ca);
            TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
            factory.init(store);
            X509ExtendedTrustManager found = null;
            for (TrustManager manager : factory.getTrustManagers()) {
                if (manager instanceof X509ExtendedTrustManager extended) {
                    found = extended;
                }
            }
            if (found == null) {
                throw new IllegalStateException("the JDK's PKIX trust manager factory gave no X.509 trust manager");
            }
            this.pkix = found;
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("cannot build a trust store of the CA " + ca.getSubjectX500Principal(), e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        pkix.checkClientTrusted(chain, authType, engine);
        identity(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        pkix.checkServerTrusted(chain, authType, engine);
        PeerIdentity identity = identity(chain);
        String expected = engine == null ? null : engine.getPeerHost();
        if (expected != null
                && !(identity.isNode() && PeerIdentity.nodeName(identity.node()).equals(expected))) {
            throw new CertificateException("dialed " + expected + " and was answered by " + identity);
        }
    }

    private static PeerIdentity identity(X509Certificate[] chain) throws CertificateException {
        try {
            return PeerIdentity.of(chain[0]);
        } catch (IllegalArgumentException e) {
            throw new CertificateException(e.getMessage(), e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        pkix.checkClientTrusted(chain, authType, socket);
        identity(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        throw new CertificateException("Eve checks servers on SSLEngine connections only");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        pkix.checkClientTrusted(chain, authType);
        identity(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("Eve checks servers on SSLEngine connections only");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return pkix.getAcceptedIssuers();
    }
}
