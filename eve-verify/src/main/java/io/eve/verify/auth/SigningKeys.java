package io.eve.verify.auth;

import io.eve.config.ConfigException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.crypto.util.PublicKeyFactory;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * The Ed25519 keys that sign a verifier's evidence (docs/quorum.md, "Signed evidence"; decision 0022): every
 * process's public key, and the private key of the one process whose part this is ({@link #holder()}), or
 * of every process for the whole set that only key generation, single-process tests and the simulator hold.
 * Keys are made, written and read in the JDK's encodings (PKCS#8 and X.509, {@code KeyPairGenerator} "Ed25519");
 * signing and verifying run on BouncyCastle's Ed25519, several times faster than the JDK 17 provider's
 * (decision 0030), with the same signatures (Ed25519 is deterministic).
 *
 * <p>Immutable; thread-safe. Private keys never appear in {@link #toString()}.
 */
public final class SigningKeys {
    static final String ALGORITHM = "Ed25519";
    /** The key-file names: {@code sign.private.<id>} and {@code sign.public.<id>}. */
    static final String PRIVATE = "sign.private.";

    static final String PUBLIC = "sign.public.";

    private final Map<Integer, PublicKey> publics;
    private final Map<Integer, PrivateKey> privates;
    /** The same keys as BouncyCastle's parameters, which do the signing and verifying. */
    private final Map<Integer, Ed25519PublicKeyParameters> verifying;

    private final Map<Integer, Ed25519PrivateKeyParameters> signing;
    private final int holder;

    private SigningKeys(Map<Integer, PublicKey> publics, Map<Integer, PrivateKey> privates, int holder) {
        this.publics = Map.copyOf(publics);
        this.privates = Map.copyOf(privates);
        this.holder = holder;
        Map<Integer, Ed25519PublicKeyParameters> verifying = new TreeMap<>();
        for (Map.Entry<Integer, PublicKey> entry : publics.entrySet()) {
            verifying.put(entry.getKey(), toBouncyCastle(entry.getValue()));
        }
        Map<Integer, Ed25519PrivateKeyParameters> signing = new TreeMap<>();
        for (Map.Entry<Integer, PrivateKey> entry : privates.entrySet()) {
            signing.put(entry.getKey(), toBouncyCastle(entry.getValue()));
        }
        this.verifying = Map.copyOf(verifying);
        this.signing = Map.copyOf(signing);
    }

    /**
     * The BouncyCastle form of a public key of the JDK's provider, from its X.509 encoding.
     *
     * @throws IllegalArgumentException naming the key's algorithm if it is not an Ed25519 key
     */
    static Ed25519PublicKeyParameters toBouncyCastle(PublicKey key) {
        try {
            AsymmetricKeyParameter converted = PublicKeyFactory.createKey(key.getEncoded());
            if (converted instanceof Ed25519PublicKeyParameters ed25519) {
                return ed25519;
            }
        } catch (java.io.IOException | RuntimeException e) {
            throw new IllegalArgumentException("not an Ed25519 public key (X.509): " + key.getAlgorithm(), e);
        }
        throw new IllegalArgumentException("not an Ed25519 public key (X.509): " + key.getAlgorithm());
    }

    /**
     * The BouncyCastle form of a private key of the JDK's provider, from its PKCS#8 encoding.
     *
     * @throws IllegalArgumentException naming the key's algorithm if it is not an Ed25519 key
     */
    static Ed25519PrivateKeyParameters toBouncyCastle(PrivateKey key) {
        try {
            AsymmetricKeyParameter converted = PrivateKeyFactory.createKey(key.getEncoded());
            if (converted instanceof Ed25519PrivateKeyParameters ed25519) {
                return ed25519;
            }
        } catch (java.io.IOException | RuntimeException e) {
            throw new IllegalArgumentException("not an Ed25519 private key (PKCS#8): " + key.getAlgorithm(), e);
        }
        throw new IllegalArgumentException("not an Ed25519 private key (PKCS#8): " + key.getAlgorithm());
    }

    /** A fresh key pair for every process of {@code ids}, from {@code random}. */
    static SigningKeys generate(int[] ids, SecureRandom random) {
        Map<Integer, PublicKey> publics = new TreeMap<>();
        Map<Integer, PrivateKey> privates = new TreeMap<>();
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(ALGORITHM);
            generator.initialize(255, random);
            for (int id : ids) {
                KeyPair pair = generator.generateKeyPair();
                publics.put(id, pair.getPublic());
                privates.put(id, pair.getPrivate());
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java 17 platform has " + ALGORITHM, e);
        }
        return new SigningKeys(publics, privates, -1);
    }

    /** Key pairs derived from {@code seed}: for tests and simulations only (anyone with the seed has them). */
    static SigningKeys insecureForTests(long seed, int[] ids) {
        try {
            SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
            random.setSeed(("eve test signing keys " + seed).getBytes(StandardCharsets.US_ASCII));
            return generate(ids, random);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA1PRNG", e);
        }
    }

    /** The part of {@code node}: every public key and its own private key only. */
    SigningKeys forNode(int node) {
        if (holder == node) {
            return this;
        }
        PrivateKey own = privates.get(node);
        if (holder >= 0 || own == null) {
            throw new IllegalArgumentException("process " + node + " holds no signing key in " + this);
        }
        return new SigningKeys(publics, Map.of(node, own), node);
    }

    /** The process whose part this is, or -1 for the whole set. */
    public int holder() {
        return holder;
    }

    /** Whether {@code id} has a public key here. */
    public boolean knows(int id) {
        return publics.containsKey(id);
    }

    /**
     * The signature of {@code origin} over {@code int origin || frame}.
     *
     * @throws IllegalStateException if this part does not hold {@code origin}'s private key
     */
    public byte[] sign(int origin, byte[] frame) {
        Ed25519PrivateKeyParameters key = signing.get(origin);
        if (key == null) {
            throw new IllegalStateException("the signing key of " + origin + " is not held by " + this);
        }
        byte[] message = signedBytes(origin, frame);
        byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
        key.sign(Ed25519.Algorithm.Ed25519, null, message, 0, message.length, signature, 0);
        return signature;
    }

    /** Whether {@code signature} is {@code origin}'s over {@code int origin || frame}; false for an unknown origin. */
    public boolean verify(int origin, byte[] frame, byte[] signature) {
        Ed25519PublicKeyParameters key = verifying.get(origin);
        if (key == null || signature.length != Ed25519.SIGNATURE_SIZE) {
            return false; // a malformed signature is a wrong one
        }
        byte[] message = signedBytes(origin, frame);
        return key.verify(Ed25519.Algorithm.Ed25519, null, message, 0, message.length, signature, 0);
    }

    /** The lines of {@code node}'s key file: its private key and every public key. */
    String lines(int node) {
        StringBuilder out = new StringBuilder();
        out.append(PRIVATE)
                .append(node)
                .append('=')
                .append(Base64.getEncoder().encodeToString(privates.get(node).getEncoded()))
                .append('\n');
        for (Map.Entry<Integer, PublicKey> entry : new TreeMap<>(publics).entrySet()) {
            out.append(PUBLIC)
                    .append(entry.getKey())
                    .append('=')
                    .append(Base64.getEncoder().encodeToString(entry.getValue().getEncoded()))
                    .append('\n');
        }
        return out.toString();
    }

    /**
     * The signing part of {@code node}'s key file from its {@code sign.*} lines ({@code where} names each line
     * in errors).
     *
     * @param privates the {@code sign.private.<id>} values by id, with where each was given
     * @param publics the {@code sign.public.<id>} values by id, with where each was given
     * @throws ConfigException naming the line and the problem: another node's private key, a missing or
     *     undecodable key, a node without a public key, a public key that does not match the private one
     */
    static SigningKeys parse(
            String source,
            int[] ids,
            int node,
            Map<Integer, Map.Entry<String, String>> privates,
            Map<Integer, Map.Entry<String, String>> publics) {
        for (Map.Entry<Integer, Map.Entry<String, String>> entry : privates.entrySet()) {
            if (entry.getKey() != node) {
                throw new ConfigException(entry.getValue().getKey() + ": " + PRIVATE + entry.getKey()
                        + " is the signing key of node " + entry.getKey() + ", another node's secret: node " + node
                        + "'s key file must hold its own secrets only");
            }
        }
        Map.Entry<String, String> own = privates.get(node);
        if (own == null) {
            throw new ConfigException(source + ": no evidence signing key (expected a line " + PRIVATE + node
                    + "=<base64 PKCS#8 Ed25519 key>; regenerate the keys with ./eve certs or ./eve keys)");
        }
        Map<Integer, PublicKey> keys = new TreeMap<>();
        for (int id : ids) {
            Map.Entry<String, String> line = publics.get(id);
            if (line == null) {
                throw new ConfigException(source + ": no public signing key of node " + id + " (expected a line "
                        + PUBLIC + id + "=<base64 X.509 Ed25519 key>)");
            }
            keys.put(id, publicKey(line.getValue(), line.getKey() + ": " + PUBLIC + id));
        }
        for (Map.Entry<Integer, Map.Entry<String, String>> entry : publics.entrySet()) {
            if (!keys.containsKey(entry.getKey())) {
                throw new ConfigException(entry.getValue().getKey() + ": " + PUBLIC + entry.getKey()
                        + " names a process outside the cluster " + java.util.Arrays.toString(ids));
            }
        }
        PrivateKey key = privateKey(own.getValue(), own.getKey() + ": " + PRIVATE + node);
        SigningKeys parsed = new SigningKeys(keys, Map.of(node, key), node);
        byte[] probe = "eve signing key check".getBytes(StandardCharsets.US_ASCII);
        if (!parsed.verify(node, probe, parsed.sign(node, probe))) {
            throw new ConfigException(own.getKey() + ": " + PRIVATE + node + " does not match " + PUBLIC + node
                    + " (the public key the others check node " + node + "'s evidence with)");
        }
        return parsed;
    }

    private static PublicKey publicKey(String value, String what) {
        try {
            PublicKey key =
                    KeyFactory.getInstance(ALGORITHM).generatePublic(new X509EncodedKeySpec(base64(value, what)));
            toBouncyCastle(key);
            return key;
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new ConfigException(what + " is not an Ed25519 public key (X.509, base64): " + e.getMessage());
        }
    }

    private static PrivateKey privateKey(String value, String what) {
        try {
            PrivateKey key =
                    KeyFactory.getInstance(ALGORITHM).generatePrivate(new PKCS8EncodedKeySpec(base64(value, what)));
            toBouncyCastle(key);
            return key;
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new ConfigException(what + " is not an Ed25519 private key (PKCS#8, base64): " + e.getMessage());
        }
    }

    private static byte[] base64(String value, String what) {
        try {
            return Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(what + " is not base64: " + e.getMessage());
        }
    }

    /** What a signature covers: {@code int origin || frame}. */
    private static byte[] signedBytes(int origin, byte[] frame) {
        return ByteBuffer.allocate(Integer.BYTES + frame.length)
                .putInt(origin)
                .put(frame)
                .array();
    }

    @Override
    public String toString() {
        return "SigningKeys[public keys of " + new TreeMap<>(publics).keySet()
                + (holder >= 0 ? ", node " + holder + "'s private key" : ", every private key") + "]";
    }
}
