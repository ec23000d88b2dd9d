package io.eve.verify.sim;

import io.eve.Reply;
import java.nio.charset.StandardCharsets;

/**
 * A client's own counter (exactly-once, invariant 4): every request adds 1 to {@link #key}, which no other
 * client touches, so the reply to the n-th request must be n. It never gives up on a request. At the end
 * of a run the counter must equal the number of acknowledged requests on every correct replica.
 */
final class CounterWorkload implements SimWorkload {
    final long key;

    CounterWorkload(long key) {
        this.key = key;
    }

    @Override
    public byte[] invoke(long seq, long now) {
        return SimCounter.add(key, 1);
    }

    @Override
    public String onReply(long seq, Reply reply, long now) {
        String value = new String(reply.payload(), StandardCharsets.UTF_8);
        if (reply.error() || !value.equals(Long.toString(seq))) {
            return "exactly-once broken: answered " + (reply.error() ? "error " + reply.errorText() : value)
                    + ", the sequential model says " + seq;
        }
        return null;
    }

    @Override
    public boolean abandons() {
        return false;
    }

    @Override
    public void onAbandoned(long seq, long now) {
        throw new IllegalStateException("a counter client never gives up on request " + seq);
    }
}
