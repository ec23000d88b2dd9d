package io.eve.verify.sim;

import io.eve.Reply;
import io.eve.Request;
import io.eve.protocol.Message;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A simulated client with its own counter key: sends {@code add:key:1} one request at a time, resends the
 * same request (same number) to the other replica after a timeout, follows redirects, and checks
 * exactly-once as replies come (invariant 4): the reply to its n-th request must be n, and a repeated
 * reply must equal the first.
 */
final class SimClient {
    private static final long CHECK_NANOS = 10_000_000L;

    final int id;
    final long key;
    private final World sim;
    private final SplittableRandom random;
    private final int[] replicas;
    private final List<byte[]> acknowledged = new ArrayList<>();
    private int target;
    private Request outstanding;
    private long outstandingSince;
    private long resendAt;
    private int remainingAfterHeal = -1;
    private int requiredMatches = 1;
    private boolean quorum;
    private final Map<String, Set<Integer>> votes = new HashMap<>();

    SimClient(World sim, int id, long key, int[] replicas, SplittableRandom random) {
        this.sim = sim;
        this.id = id;
        this.key = key;
        this.replicas = replicas.clone();
        this.random = random;
        this.target = random.nextInt(replicas.length);
    }

    /**
     * Quorum profiles: accept a reply once {@code matches} replicas sent the same one (r + 1), and on a
     * timeout send the request to every replica instead of the next one.
     */
    SimClient quorum(int matches) {
        this.requiredMatches = matches;
        this.quorum = true;
        this.target = 0;
        return this;
    }

    void start() {
        thinkThenSend();
        scheduleCheck();
    }

    int acknowledged() {
        return acknowledged.size();
    }

    /** Finish the request in flight, send {@code more} after it, then stop. */
    void onHeal(int more) {
        remainingAfterHeal = more;
        if (outstanding == null && more == 0) {
            remainingAfterHeal = 0;
        }
    }

    boolean done() {
        return remainingAfterHeal == 0 && outstanding == null;
    }

    /** The request waiting for a reply and since when, for a liveness report; {@code null} if none. */
    String pending() {
        return outstanding == null
                ? null
                : "client " + id + " request " + outstanding.requestSeq() + " pending since "
                        + outstandingSince / 1_000_000 + " ms";
    }

    private void thinkThenSend() {
        if (remainingAfterHeal == 0) {
            return;
        }
        sim.queue().after(random.nextLong(20_000_000L), "client " + id + " sends", this::sendNext);
    }

    private void sendNext() {
        if (remainingAfterHeal == 0 || outstanding != null) {
            return;
        }
        if (remainingAfterHeal > 0) {
            remainingAfterHeal--;
        }
        outstanding = new Request(id, acknowledged.size() + 1L, SimCounter.add(key, 1));
        outstandingSince = sim.now();
        transmit();
    }

    private void transmit() {
        resendAt = sim.now() + sim.clientTimeoutNanos();
        sim.network().send(id, replicas[target], new Message.ClientRequest(outstanding));
    }

    private void scheduleCheck() {
        sim.queue().after(CHECK_NANOS, "client " + id + " timer", () -> {
            if (outstanding != null && sim.now() >= resendAt && quorum) {
                sim.log("client " + id + " times out; sends request " + outstanding.requestSeq() + " to all");
                resendAt = sim.now() + sim.clientTimeoutNanos();
                for (int replica : replicas) {
                    sim.network().send(id, replica, new Message.ClientRequest(outstanding));
                }
            } else if (outstanding != null && sim.now() >= resendAt) {
                target = (target + 1) % replicas.length;
                sim.log("client " + id + " times out; resends request " + outstanding.requestSeq() + " to "
                        + replicas[target]);
                transmit();
            }
            if (!done()) {
                scheduleCheck();
            }
        });
    }

    void onMessage(int from, Message message) {
        if (message instanceof Message.ClientReply reply) {
            onReply(from, reply.reply());
        } else if (message instanceof Message.Redirect redirect) {
            if (outstanding != null && redirect.requestSeq() == outstanding.requestSeq()) {
                for (int i = 0; i < replicas.length; i++) {
                    if (replicas[i] == redirect.primary()) {
                        target = i;
                    }
                }
                // Back off a little: two replicas that disagree on the primary would bounce it forever.
                long seq = outstanding.requestSeq();
                sim.queue().after(1_000_000L, "client " + id + " follows redirect", () -> {
                    if (outstanding != null && outstanding.requestSeq() == seq) {
                        transmit();
                    }
                });
            }
        }
    }

    /** Only a reply r + 1 replicas agree on is accepted, and only an accepted reply must be right. */
    private void onQuorumReply(int from, Reply reply) {
        if (outstanding == null || reply.clientId() != id || reply.requestSeq() != outstanding.requestSeq()) {
            return;
        }
        String key = (reply.error() ? "error " : "") + text(reply.payload());
        Set<Integer> senders = votes.computeIfAbsent(key, k -> new HashSet<>());
        senders.add(from);
        if (senders.size() < requiredMatches) {
            return;
        }
        long seq = reply.requestSeq();
        if (reply.error() || !text(reply.payload()).equals(Long.toString(seq))) {
            sim.fail("client " + id + " accepted a wrong reply to request " + seq + ": " + key + " from " + senders
                    + ", the sequential model says " + seq);
            return;
        }
        acknowledged.add(reply.payload());
        sim.log("client " + id + " acknowledged request " + seq + " (from " + senders + ")");
        outstanding = null;
        votes.clear();
        thinkThenSend();
    }

    private void onReply(int from, Reply reply) {
        if (quorum) {
            onQuorumReply(from, reply);
            return;
        }
        long seq = reply.requestSeq();
        if (reply.clientId() != id || seq < 1 || seq > acknowledged.size() + 1L) {
            sim.fail("client " + id + " got " + reply + " from " + from + " but has sent only "
                    + (acknowledged.size() + (outstanding == null ? 0 : 1)) + " requests");
            return;
        }
        if (seq <= acknowledged.size()) {
            // A late copy of an old request meets a reply cache that has moved on: it is answered "stale"
            // (ReplyCache), never executed again. The client has its answer and ignores this one.
            boolean stale = reply.error() && reply.errorText().startsWith("stale request");
            if (!stale && !Arrays.equals(acknowledged.get((int) seq - 1), reply.payload())) {
                sim.fail("client " + id + " got two different replies to request " + seq + ": "
                        + text(acknowledged.get((int) seq - 1)) + " and " + text(reply.payload()) + " (from " + from
                        + ")");
            }
            return;
        }
        if (outstanding == null) {
            return;
        }
        String value = text(reply.payload());
        if (reply.error() || !value.equals(Long.toString(seq))) {
            sim.fail("exactly-once broken: client " + id + " request " + seq + " answered "
                    + (reply.error() ? "error " + reply.errorText() : value) + " by node " + from
                    + ", expected " + seq);
            return;
        }
        acknowledged.add(reply.payload());
        sim.log("client " + id + " acknowledged request " + seq + " (from node " + from + ")");
        outstanding = null;
        thinkThenSend();
    }

    private static String text(byte[] payload) {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
