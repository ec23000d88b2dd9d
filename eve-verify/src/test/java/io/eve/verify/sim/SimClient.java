package io.eve.verify.sim;

import io.eve.EveException;
import io.eve.Reply;
import io.eve.client.ClientConfig;
import io.eve.client.ClientSession;
import io.eve.protocol.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A simulated client: the real client's protocol ({@link ClientSession}, the one {@code EveClient} runs)
 * driven in simulated time, one request at a time, its payloads and the judgement of its replies coming
 * from its {@link SimWorkload} (its own counter, or shared registers). Retransmission, failover, redirects
 * and the reply quorum are the session's; this class adds what a workload does around it: a think time
 * before each request, giving up on a request that waits too long while faults are injected (when the
 * workload allows it), and checking as replies come that a repeated reply equals the first (invariant 4).
 * Single-threaded, on the simulator's event loop.
 */
final class SimClient {
    private static final long CHECK_NANOS = 10_000_000L;

    /** A client that may give up does so after this many client timeouts without an accepted reply. */
    private static final int ABANDON_AFTER_TIMEOUTS = 5;

    final int id;
    final SimWorkload workload;
    private final World sim;
    private final SplittableRandom random;
    private final boolean quorum;
    private final ClientSession<Long> session;
    private final Output output = new Output();
    private final Map<Long, byte[]> answers = new HashMap<>();
    private long sent;
    /** The request waiting for a reply, or 0. */
    private long outstanding;

    private long outstandingSince;
    private int remainingAfterHeal = -1;
    /** The sender of the message the session is handling, for the log. */
    private int from;

    /**
     * A client of {@code replicas}; with {@code matches > 0} (the quorum profiles) it accepts a reply once
     * {@code matches} replicas sent the same one ({@code r + 1}) and sends a timed-out request to all.
     */
    SimClient(World sim, int id, SimWorkload workload, int[] replicas, SplittableRandom random, int matches) {
        this.sim = sim;
        this.id = id;
        this.workload = workload;
        this.random = random;
        this.quorum = matches > 0;
        // Requests never time out in the session: giving up is the workload's decision (see givesUp).
        ClientConfig config = ClientConfig.of(replicas)
                .withTimeouts(Duration.ofNanos(sim.clientTimeoutNanos()), Duration.ofDays(1))
                .withReadTimeout(Duration.ZERO)
                .withMaxOutstanding(1);
        int firstTarget = random.nextInt(replicas.length);
        this.session = quorum
                ? new ClientSession<>(id, config.withQuorumReplies(matches), 0)
                : new ClientSession<>(id, config, firstTarget);
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
    }

    boolean done() {
        return remainingAfterHeal == 0 && outstanding == 0;
    }

    /** The request waiting for a reply and since when, for a liveness report; {@code null} if none. */
    String pending() {
        return outstanding == 0
                ? null
                : "client " + id + " request " + outstanding + " pending since " + outstandingSince / 1_000_000 + " ms";
    }

    private void thinkThenSend() {
        if (remainingAfterHeal == 0) {
            return;
        }
        sim.queue().after(random.nextLong(20_000_000L), "client " + id + " sends", this::sendNext);
    }

    private void sendNext() {
        if (remainingAfterHeal == 0 || outstanding != 0) {
            return;
        }
        if (remainingAfterHeal > 0) {
            remainingAfterHeal--;
        }
        sent++;
        outstandingSince = sim.now();
        outstanding = session.submit(workload.invoke(sent, sim.now()), sent, sim.now(), output);
        if (outstanding != sent) {
            sim.fail("client " + id + ": the session numbered request " + sent + " as " + outstanding);
        }
    }

    private void scheduleCheck() {
        sim.queue().after(CHECK_NANOS, "client " + id + " timer", () -> {
            if (outstanding != 0 && givesUp()) {
                long seq = outstanding;
                sim.log("client " + id + " gives up on request " + seq + " (it may still take effect)");
                session.abandon(seq, output);
            } else {
                session.onTick(sim.now(), output);
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

    void onMessage(int from, Message message) {
        if (message instanceof Message.Redirect redirect) {
            sim.log("client " + id + " redirected by " + from + " to " + redirect.primary() + " (request "
                    + redirect.requestSeq() + ")");
        }
        if (!quorum && message instanceof Message.ClientReply reply && !checkRepeat(from, reply.reply())) {
            return;
        }
        this.from = from;
        session.onMessage(from, message, sim.now(), output);
    }

    /**
     * Primary-backup: a reply to anything but the request in flight must repeat the first reply to it
     * (invariant 4). Whether the session should see the reply.
     */
    private boolean checkRepeat(int from, Reply reply) {
        long seq = reply.requestSeq();
        if (reply.clientId() != id || seq < 1 || seq > sent) {
            sim.fail("client " + id + " got " + reply + " from " + from + " but has sent only " + sent + " requests");
            return false;
        }
        if (seq == outstanding) {
            return true;
        }
        // A late copy of an old request meets a session that has moved on: the reply cache refuses it
        // (ReplyCache: "already answered"), never executes it again. The client has its answer, or gave up,
        // and ignores this one.
        byte[] first = answers.get(seq);
        boolean stale = reply.error() && reply.errorText().contains("not executed: it was already answered");
        if (first != null && !stale && !Arrays.equals(first, reply.payload())) {
            sim.fail("client " + id + " got two different replies to request " + seq + ": " + text(first) + " and "
                    + text(reply.payload()) + " (from " + from + ")");
        }
        return false;
    }

    /** Only an accepted reply must be right. */
    private void accept(long seq, Reply reply) {
        String wrong = workload.onReply(seq, reply, sim.now());
        if (wrong != null) {
            sim.fail("client " + id + " accepted a wrong reply to request " + seq + " (the last from node " + from
                    + "): " + wrong);
            return;
        }
        answers.put(seq, reply.payload());
        sim.log("client " + id + " acknowledged request " + seq + " (the last from node " + from + "): "
                + text(reply.payload()));
        outstanding = 0;
        thinkThenSend();
    }

    private static String text(byte[] payload) {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /** What the session asks of the simulated world. */
    private final class Output implements ClientSession.Output<Long> {
        @Override
        public void send(int to, Message message) {
            if (message instanceof Message.ClientRequest request) {
                sim.log("client " + id + " sends request " + request.request().requestSeq() + " to " + to);
            }
            sim.network().send(id, to, message);
        }

        @Override
        public void onReply(Long seq, Reply reply) {
            accept(seq, reply);
        }

        @Override
        public void onFailure(Long seq, EveException failure) {
            workload.onAbandoned(seq, sim.now());
            outstanding = 0;
            thinkThenSend();
        }
    }
}
