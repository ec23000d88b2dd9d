package io.eve.verify.sim;

import io.eve.Reply;
import io.eve.Request;
import io.eve.protocol.Message;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A simulated client: sends one request at a time, its payloads and the judgement of its replies coming
 * from its {@link SimWorkload} (its own counter, or shared registers). It resends the same request (same
 * number) to the other replica after a timeout and follows redirects; with the quorum profiles it accepts
 * a reply only once {@code r + 1} replicas sent the same one, and resends to all on a timeout. A client
 * whose workload allows it gives up on a request that waits too long while faults are injected and goes on
 * with the next number. It checks as replies come that a repeated reply equals the first (invariant 4).
 */
final class SimClient {
    private static final long CHECK_NANOS = 10_000_000L;

    /** A client that may give up does so after this many client timeouts without an accepted reply. */
    private static final int ABANDON_AFTER_TIMEOUTS = 5;

    final int id;
    final SimWorkload workload;
    private final World sim;
    private final SplittableRandom random;
    private final int[] replicas;
    private final Map<Long, byte[]> answers = new HashMap<>();
    private long sent;
    private int target;
    private Request outstanding;
    private long outstandingSince;
    private long resendAt;
    private int remainingAfterHeal = -1;
    private int requiredMatches = 1;
    private boolean quorum;
    private final Map<String, Set<Integer>> votes = new HashMap<>();

    SimClient(World sim, int id, SimWorkload workload, int[] replicas, SplittableRandom random) {
        this.sim = sim;
        this.id = id;
        this.workload = workload;
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

    /** Requests answered (and accepted). */
    long acknowledged() {
        return answers.size();
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
        sent++;
        // One request at a time: every earlier one was answered or given up, so this is the lowest unanswered.
        outstanding = new Request(id, sent, sent, workload.invoke(sent, sim.now()));
        outstandingSince = sim.now();
        transmit();
    }

    private void transmit() {
        resendAt = sim.now() + sim.clientTimeoutNanos();
        sim.network().send(id, replicas[target], new Message.ClientRequest(outstanding));
    }

    private void scheduleCheck() {
        sim.queue().after(CHECK_NANOS, "client " + id + " timer", () -> {
            if (outstanding != null && givesUp()) {
                abandon();
            } else if (outstanding != null && sim.now() >= resendAt && quorum) {
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

    /** Only while faults are injected: after they stop every request must be answered (liveness). */
    private boolean givesUp() {
        return workload.abandons()
                && remainingAfterHeal < 0
                && sim.now() - outstandingSince >= ABANDON_AFTER_TIMEOUTS * sim.clientTimeoutNanos();
    }

    private void abandon() {
        long seq = outstanding.requestSeq();
        sim.log("client " + id + " gives up on request " + seq + " (it may still take effect)");
        workload.onAbandoned(seq, sim.now());
        outstanding = null;
        votes.clear();
        thinkThenSend();
    }

    void onMessage(int from, Message message) {
        if (message instanceof Message.ClientReply reply) {
            onReply(from, reply.reply());
        } else if (message instanceof Message.Redirect redirect) {
            if (quorum) {
                // As EveClient in the quorum profiles: the replica forwarded the request; only the target moves.
                for (int i = 0; i < replicas.length; i++) {
                    if (replicas[i] == redirect.primary()) {
                        target = i;
                    }
                }
                return;
            }
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
        if (senders.size() >= requiredMatches) {
            accept(reply, "from " + senders);
        }
    }

    private void onReply(int from, Reply reply) {
        if (quorum) {
            onQuorumReply(from, reply);
            return;
        }
        long seq = reply.requestSeq();
        if (reply.clientId() != id || seq < 1 || seq > sent) {
            sim.fail("client " + id + " got " + reply + " from " + from + " but has sent only " + sent + " requests");
            return;
        }
        if (outstanding == null || seq != outstanding.requestSeq()) {
            // A late copy of an old request meets a session that has moved on: the reply cache refuses it
            // (ReplyCache: "already answered"), never executes it again. The client has its answer, or gave
            // up, and ignores this one.
            byte[] first = answers.get(seq);
            boolean stale = reply.error() && reply.errorText().contains("not executed: it was already answered");
            if (first != null && !stale && !Arrays.equals(first, reply.payload())) {
                sim.fail("client " + id + " got two different replies to request " + seq + ": " + text(first) + " and "
                        + text(reply.payload()) + " (from " + from + ")");
            }
            return;
        }
        accept(reply, "from node " + from);
    }

    private void accept(Reply reply, String source) {
        long seq = reply.requestSeq();
        String wrong = workload.onReply(seq, reply, sim.now());
        if (wrong != null) {
            sim.fail("client " + id + " accepted a wrong reply to request " + seq + " (" + source + "): " + wrong);
            return;
        }
        answers.put(seq, reply.payload());
        sim.log("client " + id + " acknowledged request " + seq + " (" + source + "): " + text(reply.payload()));
        outstanding = null;
        votes.clear();
        thinkThenSend();
    }

    private static String text(byte[] payload) {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
