package io.eve.transport.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.eve.protocol.Message;
import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * Decodes untrusted bytes the way a transport does, on a thread with a deadline so that a hang fails the
 * test, and measures what the decoder allocated so that a frame cannot make it allocate more than it holds.
 * Any exception other than a {@link FrameException} escapes and fails the test.
 */
final class HostileInput {
    /** The decoder's own objects, an exception and its message: far below any length a frame can claim. */
    private static final long ALLOCATION_SLACK = 64 * 1024;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Exactly one of {@code message} and {@code failure} is set. */
    record Outcome(Message message, FrameException failure, long allocatedBytes) {
        boolean accepted() {
            return message != null;
        }
    }

    private HostileInput() {}

    static Outcome decode(FrameCodec codec, byte[] bytes) {
        Outcome outcome = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> measure(codec, bytes));
        assertThat(outcome.allocatedBytes())
                .as("bytes allocated while decoding %d bytes", bytes.length)
                .isLessThanOrEqualTo(4L * bytes.length + ALLOCATION_SLACK);
        return outcome;
    }

    /** Decodes input that must be refused, and returns why it was. */
    static FrameException refusal(FrameCodec codec, byte[] bytes) {
        Outcome outcome = decode(codec, bytes);
        assertThat(outcome.accepted()).as("decoded %s", outcome.message()).isFalse();
        return outcome.failure();
    }

    /**
     * Decodes twice and measures the second time: the first pays once-per-JVM costs (linking string
     * concatenation sites, loading exception classes) that say nothing about what a frame can make it allocate.
     */
    private static Outcome measure(FrameCodec codec, byte[] bytes) {
        attempt(codec, bytes);
        long before = THREADS.getCurrentThreadAllocatedBytes();
        Outcome outcome = attempt(codec, bytes);
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        return new Outcome(outcome.message(), outcome.failure(), allocated);
    }

    private static Outcome attempt(FrameCodec codec, byte[] bytes) {
        Message message = null;
        FrameException failure = null;
        try {
            message = codec.decode(bytes);
        } catch (FrameException e) {
            failure = e;
        }
        return new Outcome(message, failure, 0);
    }
}
