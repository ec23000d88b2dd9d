package io.eve.transport.netty.tls;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * The WARN lines of refused connections (a failed TLS handshake, a peer claiming an id its certificate does
 * not grant), at most one per key every {@code interval}: a peer that dials again in a loop cannot flood the
 * log. The key is the id the peer claimed or was dialed as, -1 when there is none yet; the caller keeps the
 * keys few (made-up ids share one).
 *
 * <p>Thread-safe.
 */
public final class RefusalLog {
    private final Logger log;
    private final long intervalNanos;
    private final Map<Integer, Long> lastLogged = new ConcurrentHashMap<>();

    /** Writes to {@code log}, at most once per key every {@code seconds}. */
    public RefusalLog(Logger log, long seconds) {
        this.log = Objects.requireNonNull(log, "log");
        this.intervalNanos = TimeUnit.SECONDS.toNanos(seconds);
    }

    /** Logs at WARN unless {@code key} was logged within the interval. */
    public void warn(int key, String format, Object... arguments) {
        long now = System.nanoTime();
        Long last = lastLogged.get(key);
        if (last == null || now - last >= intervalNanos) {
            lastLogged.put(key, now);
            log.warn(format, arguments);
        }
    }
}
