package io.eve.bench.pipeline;

import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.transport.wire.FrameCodec;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
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
 * The codec's cost for a batch of 64 requests of 64 bytes (an ExecuteBatch frame) against copying and
 * checksumming the same bytes, and the cost of building and comparing a token against one raw SHA-256
 * over the same 105 bytes, in the same run.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class WireAndTokenBenchmark {
    private final FrameCodec codec = new FrameCodec(1 << 20);
    private Message executeBatch;
    private byte[] frame;
    private final Digest root = Digest.fromHex("11".repeat(32));
    private final Digest replies = Digest.fromHex("22".repeat(32));
    private final Digest previous = Digest.fromHex("33".repeat(32));
    private final byte[] tokenInput = new byte[105];
    private MessageDigest sha256;
    private Token other;

    @Setup
    public void prepare() throws NoSuchAlgorithmException {
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            requests.add(new Request(1000 + i, 1, new byte[64]));
        }
        executeBatch = new Message.ExecuteBatch(3, 0, new Batch(7, 1_700_000_000_000L, 99, requests), false);
        frame = codec.encode(executeBatch);
        sha256 = MessageDigest.getInstance("SHA-256");
        other = Token.of(9, root, replies, previous);
    }

    @Benchmark
    public Message encodeAndDecodeExecuteBatch() {
        return codec.decode(codec.encode(executeBatch));
    }

    @Benchmark
    public long copyAndChecksumBaseline() {
        byte[] copy = frame.clone();
        CRC32C crc = new CRC32C();
        crc.update(copy, 0, copy.length);
        return crc.getValue();
    }

    @Benchmark
    public boolean buildAndCompareToken() {
        return Token.of(9, root, replies, previous).matches(other);
    }

    @Benchmark
    public byte[] sha256Baseline() {
        return sha256.digest(tokenInput);
    }
}
