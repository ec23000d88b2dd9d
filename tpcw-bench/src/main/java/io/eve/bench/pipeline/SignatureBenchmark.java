package io.eve.bench.pipeline;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.Signature;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.crypto.util.PublicKeyFactory;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One Ed25519 signature and one verification over a 160-byte message (about a signed {@code Prepare} frame)
 * with the JDK 17 provider ({@code Signature "Ed25519"}) against BouncyCastle's low-level implementation
 * ({@code Ed25519PrivateKeyParameters.sign}, {@code Ed25519PublicKeyParameters.verify}), with the same key
 * pair, converted from the JDK's PKCS#8 and X.509 encodings as the evidence keys are (decision 0030).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class SignatureBenchmark {
    private final byte[] message = new byte[160];
    private KeyPair jdkKeys;
    private Signature jdkSigner;
    private Signature jdkVerifier;
    private byte[] jdkSignature;
    private Ed25519PrivateKeyParameters bcPrivate;
    private Ed25519PublicKeyParameters bcPublic;
    private byte[] bcSignature;

    @Setup
    public void prepare() throws GeneralSecurityException, java.io.IOException {
        new SecureRandom(new byte[] {7}).nextBytes(message);
        KeyPairGenerator generator = KeyPairGenerator.getInstance("Ed25519");
        jdkKeys = generator.generateKeyPair();
        jdkSigner = Signature.getInstance("Ed25519");
        jdkVerifier = Signature.getInstance("Ed25519");
        jdkSignature = jdkSign();
        bcPrivate = (Ed25519PrivateKeyParameters)
                PrivateKeyFactory.createKey(jdkKeys.getPrivate().getEncoded());
        bcPublic = (Ed25519PublicKeyParameters)
                PublicKeyFactory.createKey(jdkKeys.getPublic().getEncoded());
        bcSignature = bcSign();
        if (!java.util.Arrays.equals(jdkSignature, bcSignature) || !bcVerify() || !jdkVerify()) {
            throw new IllegalStateException("the two implementations disagree on one Ed25519 signature");
        }
    }

    @Benchmark
    public byte[] jdkSign() throws GeneralSecurityException {
        jdkSigner.initSign(jdkKeys.getPrivate());
        jdkSigner.update(message);
        return jdkSigner.sign();
    }

    @Benchmark
    public boolean jdkVerify() throws GeneralSecurityException {
        jdkVerifier.initVerify(jdkKeys.getPublic());
        jdkVerifier.update(message);
        return jdkVerifier.verify(jdkSignature);
    }

    @Benchmark
    public byte[] bcSign() {
        byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
        bcPrivate.sign(Ed25519.Algorithm.Ed25519, null, message, 0, message.length, signature, 0);
        return signature;
    }

    @Benchmark
    public boolean bcVerify() {
        return bcPublic.verify(Ed25519.Algorithm.Ed25519, null, message, 0, message.length, bcSignature, 0);
    }
}
