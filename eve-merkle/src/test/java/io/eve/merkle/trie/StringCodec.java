package io.eve.merkle.trie;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/** Test codec: keys and values are strings, keys as UTF-8, values as a 4-byte length then UTF-8. */
final class StringCodec implements TrieCodec<String, String> {
    int valuesHashed;

    @Override
    public byte[] encodeKey(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void hashValue(String value, MessageDigest sha256) {
        valuesHashed++;
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        sha256.update(intBytes(bytes.length));
        sha256.update(bytes);
    }

    static byte[] intBytes(int value) {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** The specified key hash, computed independently of the trie: SHA-256, first 8 bytes, big-endian. */
    static long sha256KeyHash(byte[] encodedKey) {
        byte[] digest = sha256().digest(encodedKey);
        long bits = 0;
        for (int i = 0; i < 8; i++) {
            bits = (bits << 8) | (digest[i] & 0xFF);
        }
        return bits;
    }

    /** The model's entries in the specified canonical order, for the given key hash. */
    static List<Map.Entry<String, String>> canonical(Map<String, String> model, ToLongFunction<byte[]> keyHash) {
        List<Map.Entry<String, String>> entries = new ArrayList<>();
        model.forEach((key, value) -> entries.add(Map.entry(key, value)));
        entries.sort((left, right) -> {
            byte[] leftKey = bytes(left.getKey());
            byte[] rightKey = bytes(right.getKey());
            int byHash = Long.compareUnsigned(keyHash.applyAsLong(leftKey), keyHash.applyAsLong(rightKey));
            return byHash != 0 ? byHash : Arrays.compareUnsigned(leftKey, rightKey);
        });
        return entries;
    }

    static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }
}
