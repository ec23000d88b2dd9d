package io.eve.merkle.codec;

import java.security.MessageDigest;

/**
 * A {@link Sink} that feeds someone else's {@link MessageDigest}, for code that is handed a digest to
 * update (the values of a trie bucket). Call {@link #flush()} when done. Not thread-safe: one per thread
 * ({@link #feeding(MessageDigest)}).
 */
public final class DigestFeed extends DigestWriter {
    private static final ThreadLocal<DigestFeed> PER_THREAD = ThreadLocal.withInitial(DigestFeed::new);

    private MessageDigest target;

    private DigestFeed() {
        super(256, 128);
    }

    /** The calling thread's feed, now writing into {@code target}. */
    public static DigestFeed feeding(MessageDigest target) {
        DigestFeed feed = PER_THREAD.get();
        feed.discard();
        feed.target = target;
        return feed;
    }

    @Override
    MessageDigest target() {
        return target;
    }
}
