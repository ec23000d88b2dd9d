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
 * unordered pair of process ids, and for each process a self key for the tag it puts in its own slot (it
 * checks its own messages when others forward them back).
 *
 * <p>A process holds only its own part (docs/operations.md, "Security"): the keys of the pairs it belongs
 * to and its own self key, read from its own key file ({@link #loadNode}) with one line
 * {@code key.<a>-<b>=<64 hex digits>} for each pair {@code a < b} that names it and one line
 * {@code self.<id>=<64 hex digits>}; and, for signed evidence ({@link SigningKeys}), its own Ed25519 private
 * key {@code sign.private.<id>=<base64>} and every process's public key {@code sign.public.<p>=<base64>}. A
 * key file holding anything that belongs to other processes (the key of
 * a pair it is not in, another's self key) is refused, so no process can compute the tags of another. The
 * whole set ({@link #generate}, {@link #insecureForTests}) exists only where keys are made (./eve keys,
 * ./eve certs) and in single-process tests and simulations; {@link Authenticator} keeps only its own part
 * ({@link #forNode}).
 *
 * <p>Immutable and thread-safe. Keys never leave this package and never appear in {@link #toString()}.
 */
public final class MacKeys {
    /** Bytes of a key (and of an HMAC-SHA256 tag). */
    public static final int KEY_BYTES = 32;

    /** The name of a node's key file inside its folder of a bundle ({@link #writeNodeFiles}). */
    public static final String NODE_FILE = "macs.properties";

    private static final Pattern NAME = Pattern.compile("key\\.(\\d{1,9})-(\\d{1,9})");
    private static final Pattern SELF = Pattern.compile("self\\.(\\d{1,9})");
    private static final HexFormat HEX = HexFormat.of();

    private static final Pattern SIGN = Pattern.compile("sign\\.(private|public)\\.(\\d{1,9})");

    private final int[] ids;
    private final Map<Long, byte[]> pairs;
    private final Map<Integer, byte[]> selfKeys;
    /** The one process whose part this is, or -1 for the whole set. */
    private final int holder;
    /** The Ed25519 keys of signed evidence, or null for a key file without them. */
    private final SigningKeys signing;

    private MacKeys(
            int[] ids, Map<Long, byte[]> pairs, Map<Integer, byte[]> selfKeys, int holder, SigningKeys signing) {
        this.ids = ids;
        this.pairs = pairs;
        this.selfKeys = selfKeys;
        this.holder = holder;
        this.signing = signing;
    }

    /**
     * The Ed25519 keys that sign and check evidence (docs/quorum.md, "Signed evidence"): this part's own
     * private key and every public key.
     *
     * @throws ConfigException if the key file held none (written before signed evidence)
     */
    public SigningKeys signing() {
        if (signing == null) {
            throw new ConfigException("the key file of node " + holder + " holds no evidence signing key ("
                    + SigningKeys.PRIVATE + holder + "); the bft profile needs one: regenerate the keys with"
                    + " ./eve certs or ./eve keys");
        }
        return signing;
    }

    /**
     * The same keys without the Ed25519 ones: links that authenticate but do not sign evidence, as bft was
     * before signed evidence (for tests of the tag vectors alone, and to measure what signing costs; not safe
     * against a Byzantine verifier's view changes, docs/quorum.md "Signed evidence").
     */
    public MacKeys withoutSigning() {
        return new MacKeys(ids, pairs, selfKeys, holder, null);
    }

    /** Whether this key file holds the Ed25519 keys of signed evidence. */
    public boolean signs() {
        return signing != null;
    }

    /**
     * Reads and validates the key file of process {@code node} at {@code file} for the processes {@code ids}
     * (see {@link #parseNode}). The file must exist and, where the file system has POSIX permissions, be
     * readable by its owner only.
     *
     * @throws ConfigException naming the file and what is wrong with it
     */
    public static MacKeys loadNode(Path file, int[] ids, int node) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException("the key file " + file + " of node " + node + " does not exist (generate one"
                    + " per node with ./eve keys or ./eve certs)");
        }
        io.eve.transport.netty.tls.TlsIdentity.checkOwnerOnly(file, "the key file of node " + node);
        try {
            return parseNode(Files.readString(file, StandardCharsets.UTF_8), file.toString(), ids, node);
        } catch (IOException e) {
            throw new ConfigException("cannot read the key file " + file + " of node " + node + ": " + e.getMessage());
        }
    }

    /**
     * Parses and validates the key-file text of process {@code node} ({@code source} names it in errors):
     * blank lines and lines starting with {@code #} or {@code !} are skipped; every other line must be
     * {@code key.<a>-<b>=<hex>} with {@code a < b} both among {@code ids} and one of them {@code node}, or
     * {@code self.<node>=<hex>}; every pair of {@code node} must appear exactly once with a key of its own.
     *
     * @throws ConfigException naming the line or pair that is wrong and what was expected; in particular a
     *     file holding another process's secret (a pair without {@code node}, another self key)
     */
    public static MacKeys parseNode(String text, String source, int[] ids, int node) {
        int[] sorted = checkIds(ids);
        if (Arrays.binarySearch(sorted, node) < 0) {
            throw new ConfigException(source + ": node " + node + " is not in the cluster " + Arrays.toString(sorted));
        }
        Map<Long, byte[]> pairs = new HashMap<>();
        Map<Integer, byte[]> selfKeys = new HashMap<>();
        Map<String, String> keyOwners = new HashMap<>();
        Map<Integer, Map.Entry<String, String>> signPrivate = new TreeMap<>();
        Map<Integer, Map.Entry<String, String>> signPublic = new TreeMap<>();
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
            Matcher self = SELF.matcher(name);
            Matcher matcher = NAME.matcher(name);
            Matcher sign = SIGN.matcher(name);
            if (sign.matches()) {
                Map<Integer, Map.Entry<String, String>> kind =
                        sign.group(1).equals("private") ? signPrivate : signPublic;
                if (kind.put(Integer.parseInt(sign.group(2)), Map.entry(where, value)) != null) {
                    throw new ConfigException(where + ": " + name + " appears a second time");
                }
                continue;
            }
            if (self.matches()) {
                int id = Integer.parseInt(self.group(1));
                if (id != node) {
                    throw new ConfigException(where + ": " + name + " is the self key of node " + id
                            + ", another node's secret: node " + node + "'s key file must hold its own secrets only");
                }
                byte[] key = parseKey(value, where + ": " + name);
                checkDistinct(keyOwners, key, name, where);
                if (selfKeys.put(id, key) != null) {
                    throw new ConfigException(where + ": " + name + " appears a second time");
                }
                continue;
            }
            if (!matcher.matches()) {
                throw new ConfigException(where + ": '" + name + "' is not of the form key.<a>-<b>, self." + node
                        + ", sign.private." + node + " or sign.public.<id>");
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
            if (a != node && b != node) {
                throw new ConfigException(where + ": " + name + " is the key of nodes " + a + " and " + b
                        + ", another node's secret: node " + node + "'s key file must hold only the keys of its own"
                        + " pairs (generate one file per node with ./eve keys or ./eve certs)");
            }
            byte[] key = parseKey(value, where + ": " + name);
            checkDistinct(keyOwners, key, name, where);
            if (pairs.put(pair(a, b), key) != null) {
                throw new ConfigException(where + ": " + name + " appears a second time");
            }
        }
        for (int other : sorted) {
            if (other != node && !pairs.containsKey(pair(Math.min(node, other), Math.max(node, other)))) {
                String name = "key." + Math.min(node, other) + "-" + Math.max(node, other);
                throw new ConfigException(source + ": no key for the pair " + Math.min(node, other) + "-"
                        + Math.max(node, other) + " (expected a line " + name + "=<64 hex digits>)");
            }
        }
        if (!selfKeys.containsKey(node)) {
            throw new ConfigException(source + ": no self key (expected a line self." + node + "=<64 hex digits>)");
        }
        SigningKeys signing = signPrivate.isEmpty() && signPublic.isEmpty()
                ? null
                : SigningKeys.parse(source, sorted, node, signPrivate, signPublic);
        return new MacKeys(sorted, pairs, selfKeys, node, signing);
    }

    private static void checkDistinct(Map<String, String> keyOwners, byte[] key, String name, String where) {
        String previous = keyOwners.putIfAbsent(HEX.formatHex(key), name);
        if (previous != null && !previous.equals(name)) {
            throw new ConfigException(
                    where + ": " + name + " holds the same key as " + previous + "; every key must be its own");
        }
    }

    /** Fresh random keys for every pair of {@code ids} and a self key for each, from {@code random}. */
    public static MacKeys generate(int[] ids, SecureRandom random) {
        int[] sorted = checkIds(ids);
        Map<Long, byte[]> pairs = new HashMap<>();
        Map<Integer, byte[]> selfKeys = new HashMap<>();
        for (int i = 0; i < sorted.length; i++) {
            for (int j = i + 1; j < sorted.length; j++) {
                byte[] key = new byte[KEY_BYTES];
                random.nextBytes(key);
                pairs.put(pair(sorted[i], sorted[j]), key);
            }
            byte[] self = new byte[KEY_BYTES];
            random.nextBytes(self);
            selfKeys.put(sorted[i], self);
        }
        return new MacKeys(sorted, pairs, selfKeys, -1, SigningKeys.generate(sorted, random));
    }

    /**
     * Keys derived from {@code seed} (SHA-256 of the seed and the pair or process): for tests and simulations
     * only, since anyone who knows the seed knows every key.
     */
    public static MacKeys insecureForTests(long seed, int... ids) {
        int[] sorted = checkIds(ids);
        Map<Long, byte[]> pairs = new HashMap<>();
        Map<Integer, byte[]> selfKeys = new HashMap<>();
        for (int i = 0; i < sorted.length; i++) {
            for (int j = i + 1; j < sorted.length; j++) {
                pairs.put(pair(sorted[i], sorted[j]), derive("eve test key", seed, pair(sorted[i], sorted[j])));
            }
            selfKeys.put(sorted[i], derive("eve test self key", seed, sorted[i]));
        }
        return new MacKeys(sorted, pairs, selfKeys, -1, SigningKeys.insecureForTests(seed, sorted));
    }

    private static byte[] derive(String label, long seed, long subject) {
        MessageDigest sha = sha256();
        sha.update(label.getBytes(StandardCharsets.US_ASCII));
        sha.update(longBytes(seed));
        sha.update(longBytes(subject));
        return sha.digest();
    }

    /**
     * The part of process {@code node}: the keys of its pairs and its self key, nothing of any other process.
     *
     * @throws IllegalArgumentException if {@code node} holds no keys here (another process's part, or not in
     *     the cluster)
     */
    public MacKeys forNode(int node) {
        if (holder == node) {
            return this;
        }
        if (holder >= 0 || !contains(node)) {
            throw new IllegalArgumentException("process " + node + " holds no keys in " + this);
        }
        Map<Long, byte[]> own = new HashMap<>();
        for (int other : ids) {
            if (other != node) {
                long pair = pair(Math.min(node, other), Math.max(node, other));
                own.put(pair, pairs.get(pair));
            }
        }
        return new MacKeys(
                ids, own, Map.of(node, selfKeys.get(node)), node, signing == null ? null : signing.forNode(node));
    }

    /**
     * Writes one key file per process, {@code dir/node-<id>/}{@value #NODE_FILE}, each with that process's
     * part only ({@link #loadNode} reads it back), readable by its owner only where the file system has POSIX
     * permissions. Creates the folders; refuses to overwrite a file that exists.
     */
    public void writeNodeFiles(Path dir) throws IOException {
        if (holder >= 0) {
            throw new IllegalStateException("only the whole set writes every node's file, not " + this);
        }
        for (int id : ids) {
            Path folder = dir.resolve("node-" + id);
            Files.createDirectories(folder);
            forNode(id).write(folder.resolve(NODE_FILE));
        }
    }

    private void write(Path file) throws IOException {
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.createFile(file);
        }
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            out.write("# Eve HMAC-SHA256 keys of node " + holder
                    + ": the keys of its pairs and its self key (docs/quorum.md, \"Authenticators\").\n");
            out.write("# Secret: for node " + holder + " only; nobody else may read it.\n");
            for (Map.Entry<Long, byte[]> entry : new TreeMap<>(pairs).entrySet()) {
                long pair = entry.getKey();
                out.write(
                        "key." + (int) (pair >>> 32) + "-" + (int) pair + "=" + HEX.formatHex(entry.getValue()) + "\n");
            }
            out.write("self." + holder + "=" + HEX.formatHex(selfKeys.get(holder)) + "\n");
            if (signing != null) {
                out.write("# Ed25519: node " + holder + "'s evidence signing key and every node's public key"
                        + " (docs/quorum.md, \"Signed evidence\").\n");
                out.write(signing.lines(holder));
            }
        }
    }

    /** The processes holding keys, in id order: the order of the tags in an authenticator. */
    public int[] ids() {
        return ids.clone();
    }

    /** Whether {@code id} is one of the cluster's processes. */
    public boolean contains(int id) {
        return Arrays.binarySearch(ids, id) >= 0;
    }

    /** The process whose part this is, or -1 for the whole set. */
    public int holder() {
        return holder;
    }

    /** The index of {@code id} in {@link #ids()}, or a negative number if it holds no keys. */
    int indexOf(int id) {
        return Arrays.binarySearch(ids, id);
    }

    int size() {
        return ids.length;
    }

    /**
     * The key {@code a} and {@code b} share; for {@code a == b}, the self key of {@code a}.
     *
     * @throws IllegalStateException if this part does not hold it (another process's secret)
     */
    byte[] key(int a, int b) {
        byte[] key = a == b ? selfKeys.get(a) : pairs.get(pair(Math.min(a, b), Math.max(a, b)));
        if (key == null) {
            throw new IllegalStateException("the key of " + a + "-" + b + " is not held by " + this);
        }
        return key;
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
        return "MacKeys[processes " + Arrays.toString(ids) + ", " + pairs.size() + " pair keys"
                + (holder >= 0 ? ", node " + holder + "'s part" : "") + "]";
    }
}
