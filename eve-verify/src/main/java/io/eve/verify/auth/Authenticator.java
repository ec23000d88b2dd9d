package io.eve.verify.auth;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The authenticator of Eve §3 and PBFT: for a frame sent by {@code self}, one HMAC-SHA256 tag per process of
 * {@link MacKeys#ids()}, in that order, the tag for process {@code p} being
 * {@code HMAC(key(self, p), int origin || frame)} (the origin as 4 big-endian bytes). A receiver checks
 * only its own slot, so an authenticator can be forwarded and every process can check it for itself.
 *
 * <p>Thread-safe: {@link Mac} is not, so each thread keeps its own initialised instances (one per peer).
 */
public final class Authenticator {
    /** Bytes of one tag. */
    public static final int TAG_BYTES = MacKeys.KEY_BYTES;

    private static final String ALGORITHM = "HmacSHA256";

    private final MacKeys keys;
    private final int self;
    private final int selfIndex;
    private final int[] ids;
    private final ThreadLocal<Mac[]> macs;

    /**
     * The authenticator of process {@code self}. It keeps only {@code self}'s part of {@code keys}
     * ({@link MacKeys#forNode}), so it can compute no tag another process could.
     *
     * @throws IllegalArgumentException if {@code keys} does not hold {@code self}'s part
     */
    public Authenticator(MacKeys keys, int self) {
        this.keys = Objects.requireNonNull(keys, "keys").forNode(self);
        this.self = self;
        this.selfIndex = keys.indexOf(self);
        this.ids = keys.ids();
        this.macs = ThreadLocal.withInitial(() -> new Mac[ids.length]);
    }

    /** The process this authenticator speaks for. */
    public int self() {
        return self;
    }

    /** The keys it holds: {@link #self()}'s part only. */
    public MacKeys keys() {
        return keys;
    }

    /** The tag vector of {@code frame} sent by this process: {@code 32 * n} bytes, slot by slot in id order. */
    public byte[] tags(byte[] frame) {
        byte[] tags = new byte[ids.length * TAG_BYTES];
        for (int slot = 0; slot < ids.length; slot++) {
            Mac mac = mac(slot);
            mac.update(intBytes(self));
            mac.update(frame);
            try {
                mac.doFinal(tags, slot * TAG_BYTES);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("the tag vector has room for every tag", e);
            }
        }
        return tags;
    }

    /**
     * Whether {@code tags} holds, in this process's slot, the right tag of {@code frame} from {@code origin}.
     * False for an origin without keys or a vector of the wrong size. The comparison takes the same time
     * wherever the tags differ ({@link MessageDigest#isEqual}).
     */
    public boolean verify(int origin, byte[] frame, byte[] tags) {
        if (tags.length != ids.length * TAG_BYTES || !keys.contains(origin)) {
            return false;
        }
        return MessageDigest.isEqual(expected(origin, frame), slotOf(tags, selfIndex));
    }

    /** The tag {@code origin} should have put in this process's slot for {@code frame}. */
    byte[] expected(int origin, byte[] frame) {
        Mac mac = mac(keys.indexOf(origin));
        mac.update(intBytes(origin));
        mac.update(frame);
        return mac.doFinal();
    }

    static byte[] slotOf(byte[] tags, int slot) {
        byte[] tag = new byte[TAG_BYTES];
        System.arraycopy(tags, slot * TAG_BYTES, tag, 0, TAG_BYTES);
        return tag;
    }

    /** This thread's Mac keyed for the pair (self, the process in {@code slot}). */
    private Mac mac(int slot) {
        Mac[] cached = macs.get();
        Mac mac = cached[slot];
        if (mac == null) {
            try {
                mac = Mac.getInstance(ALGORITHM);
                mac.init(new SecretKeySpec(keys.key(self, ids[slot]), ALGORITHM));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("every Java platform has " + ALGORITHM, e);
            }
            cached[slot] = mac;
        }
        return mac;
    }

    private static byte[] intBytes(int value) {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    @Override
    public String toString() {
        return "Authenticator[process " + self + ", " + ids.length + " slots]";
    }
}
