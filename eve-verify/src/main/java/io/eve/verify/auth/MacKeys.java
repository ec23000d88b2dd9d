package io.eve.verify.auth;

import io.eve.config.ConfigException;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The symmetric HMAC-SHA256 keys of a cluster (docs/quorum.md, "Authenticators"): one 32-byte key per
 * unordered pair of process ids, read from a key file with one line {@code key.<a>-<b>=<64 hex digits>}
 * for every pair {@code a < b}. Each process also has a self key, derived from all of its pair keys, for
 * the tag it puts in its own slot (it checks its own messages when others forward them back); no other
 * process holds all of those keys, so none can forge that tag.
 *
 * <p>Immutable and thread-safe. Keys never leave this package and never appear in {@link #toString()}.
 */
public final class MacKeys {
    /** Bytes of a key (and of an HMAC-SHA256 tag). */
    public static final int KEY_BYTES = 32;

    private static final Pattern NAME = Pattern.compile("key\\.(\\d{1,9})-(\\d{1,9})");
    private static final HexFormat HEX = HexFormat.of();

    private final int[] ids;
    private final Map<Long, byte[]> pairs;
    private final byte[][] selfKeys;

    private MacKeys(int[] ids, Map<Long, byte[]> pairs) {
        this.ids = ids;
        this.pairs = pairs;
        this.selfKeys = new byte[ids.length][];
        for (int i = 0; i < ids.length; i++) {
            selfKeys[i] = deriveSelfKey(ids[i]);
        }
    }

    /** Reads and validates the key file at {@code file} for the processes {@code ids}. */
    public static MacKeys load(Path file, int[] ids) throws IOException {
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString(), ids);
    }

    /**
     * Parses and validates key-file text ({@code source} names it in errors): blank lines and lines starting
     * with {@code #} or {@code !} are skipped; every other line must be {@code key.<a>-<b>=<hex>} with
     * {@code a < b} both among {@code ids}, and every such pair must appear exactly once with a key of its
     * own.
     *
     * @throws ConfigException naming the line or pair that is wrong and what was expected
     */
    public static MacKeys parse(String text, String source, int[] ids) {
        int[] sorted = checkIds(ids);
        Map<Long, byte[]> pairs = new HashMap<>();
        Map<String, String> keyOwners = new HashMap<>();
        String[] lines = text.split("\\R", -1);
        for (int number = 1; number <= lines.length; number++) {
            String line = lines[number - 1].strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
                continue;
            }
            String where = source + " line " + number;
            int equals = line.indexOf('=');
            if (equals < 0) {
                throw new ConfigException(where + ": expected key.<a>-<b>=<64 hex digits>, found no '='");
            }
            String name = line.substring(0, equals).strip();
            String value = line.substring(equals + 1).strip();
            Matcher matcher = NAME.matcher(name);
            if (!matcher.matches()) {
                throw new ConfigException(where + ": '" + name + "' is not of the form key.<a>-<b>");
            }
            int a = Integer.parseInt(matcher.group(1));
            int b = Integer.parseInt(matcher.group(2));
            if (a >= b) {
                throw new ConfigException(where + ": " + name + " must name the smaller id first and two distinct"
                        + " ids (key." + Math.min(a, b) + "-" + Math.max(a, b) + ")");
            }
            if (Arrays.binarySearch(sorted, a) < 0 || Arrays.binarySearch(sorted, b) < 0) {
                throw new ConfigException(
                        where + ": " + name + " names a process outside the cluster " + Arrays.toString(sorted));
            }
            byte[] key = parseKey(value, where + ": " + name);
            String previous = keyOwners.putIfAbsent(HEX.formatHex(key), name);
            if (previous != null && !previous.equals(name)) {
                throw new ConfigException(where + ": " + name + " holds the same key as " + previous
                        + "; every pair needs a key of its own");
            }
            if (pairs.put(pair(a, b), key) != null) {
                throw new ConfigException(where + ": " + name + " appears a second time");
            }
        }
        for (int i = 0; i < sorted.length; i++) {
            for (int j = i + 1; j < sorted.length; j++) {
                if (!pairs.containsKey(pair(sorted[i], sorted[j]))) {
                    throw new ConfigException(source + ": no key for the pair " + sorted[i] + "-" + sorted[j]
                            + " (expected a line key." + sorted[i] + "-" + sorted[j] + "=<64 hex digits>)");
                }
            }
        }
        return new MacKeys(sorted, pairs);
    }

    /** Fresh random keys for every pair of {@code ids}, from {@code random}. */
    public static MacKeys generate(int[] ids, SecureRandom random) {
        int[] sorted = checkIds(ids);
        Map<Long, byte[]> pairs = new HashMap<>();
        for (int i = 0; i < sorted.length; i++) {
            for (int j = i + 1; j < sorted.length; j++) {
                byte[] key = new byte[KEY_BYTES];
                random.nextBytes(key);
                pairs.put(pair(sorted[i], sorted[j]), key);
            }
        }
        return new MacKeys(sorted, pairs);
    }

    /**
     * Keys derived from {@code seed} (SHA-256 of the seed and the pair): for tests and simulations only, since
     * anyone who knows the seed knows every key.
     */
    public static MacKeys insecureForTests(long seed, int... ids) {
        int[] sorted = checkIds(ids);
        Map<Long, byte[]> pairs = new HashMap<>();
        for (int i = 0; i < sorted.length; i++) {
            for (int j = i + 1; j < sorted.length; j++) {
                MessageDigest sha = sha256();
                sha.update("eve test key".getBytes(StandardCharsets.US_ASCII));
                sha.update(longBytes(seed));
                sha.update(longBytes(pair(sorted[i], sorted[j])));
                pairs.put(pair(sorted[i], sorted[j]), sha.digest());
            }
        }
        return new MacKeys(sorted, pairs);
    }

    /**
     * Writes the key file ({@link #parse} reads it back), readable by its owner only where the file system
     * has POSIX permissions. Refuses to overwrite an existing file.
     */
    public void write(Path file) throws IOException {
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.createFile(file);
        }
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            out.write("# Eve HMAC-SHA256 keys, one per pair of processes (docs/quorum.md, \"Authenticators\").\n");
            out.write("# Secret: every process needs this file; nobody else may read it.\n");
            for (Map.Entry<Long, byte[]> entry : new TreeMap<>(pairs).entrySet()) {
                long pair = entry.getKey();
                out.write(
                        "key." + (int) (pair >>> 32) + "-" + (int) pair + "=" + HEX.formatHex(entry.getValue()) + "\n");
            }
        }
    }

    /** The processes holding keys, in id order: the order of the tags in an authenticator. */
    public int[] ids() {
        return ids.clone();
    }

    public boolean contains(int id) {
        return Arrays.binarySearch(ids, id) >= 0;
    }

    /** The index of {@code id} in {@link #ids()}, or a negative number if it holds no keys. */
    int indexOf(int id) {
        return Arrays.binarySearch(ids, id);
    }

    int size() {
        return ids.length;
    }

    /** The key {@code a} and {@code b} share; for {@code a == b}, the self key of {@code a}. */
    byte[] key(int a, int b) {
        if (a == b) {
            return selfKeys[indexOf(a)];
        }
        return pairs.get(pair(Math.min(a, b), Math.max(a, b)));
    }

    private byte[] deriveSelfKey(int id) {
        MessageDigest sha = sha256();
        sha.update("eve self key".getBytes(StandardCharsets.US_ASCII));
        sha.update(longBytes(id));
        for (int other : ids) {
            if (other != id) {
                sha.update(key(id, other));
            }
        }
        return sha.digest();
    }

    private static int[] checkIds(int[] ids) {
        if (ids == null || ids.length < 2) {
            throw new ConfigException(
                    "authenticators need at least two processes, got " + (ids == null ? "none" : Arrays.toString(ids)));
        }
        Set<Integer> seen = new HashSet<>();
        for (int id : ids) {
            if (id < 0 || !seen.add(id)) {
                throw new ConfigException(
                        "process ids " + Arrays.toString(ids) + " must be distinct and not negative (" + id + ")");
            }
        }
        int[] sorted = ids.clone();
        Arrays.sort(sorted);
        return sorted;
    }

    private static byte[] parseKey(String value, String what) {
        if (value.length() != 2 * KEY_BYTES) {
            throw new ConfigException(what + " has " + value.length() + " characters; expected " + 2 * KEY_BYTES
                    + " hex digits (" + KEY_BYTES + " bytes)");
        }
        byte[] key;
        try {
            key = HEX.parseHex(value);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(what + " is not hexadecimal (digits 0-9 and a-f only)");
        }
        boolean allZero = true;
        for (byte b : key) {
            allZero &= b == 0;
        }
        if (allZero) {
            throw new ConfigException(what + " is all zeros, a placeholder rather than a key");
        }
        return key;
    }

    private static long pair(int a, int b) {
        return ((long) a << 32) | (b & 0xffffffffL);
    }

    private static byte[] longBytes(long value) {
        byte[] bytes = new byte[Long.BYTES];
        for (int i = 0; i < Long.BYTES; i++) {
            bytes[i] = (byte) (value >>> (56 - 8 * i));
        }
        return bytes;
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "MacKeys[processes " + Arrays.toString(ids) + ", " + pairs.size() + " pair keys]";
    }
}
