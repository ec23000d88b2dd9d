package io.eve.client;

import io.eve.EveException;
import io.eve.Reply;
import io.eve.Request;
import io.eve.protocol.Message;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The client's side of the protocol without threads, sockets or clock (sans-IO): request numbering and the
 * session window, retransmission and failover, the reply quorum, redirects, Eve §6's read-only requests and
 * timeouts. Time comes in as an argument ({@code now}, nanoseconds on any monotonic scale); what the session
 * wants done goes out through an {@link Output}: frames to send and requests finished, each with the
 * caller's attachment. {@link EveClient} is a thread-safe shell over one session; the simulator drives the
 * same session in simulated time (docs/simulation.md).
 *
 * <p>Ordered requests live in a ring of slots indexed by request number, so numbering, answering and timing
 * out allocate nothing; the only objects per request are the {@link Request} and its message. Attempt
 * timeouts are checked by {@link #onTick} over a queue in time order: every attempt waits the same
 * {@code attemptTimeout}, so an attempt (re)sent later is due later and the queue needs no sorting. Request
 * deadlines follow request numbers for the same reason.
 *
 * <p>Not thread-safe: one thread at a time (EveClient holds a lock around every call).
 *
 * @param <T> what the caller attaches to a request and gets back when it finishes (a future, a slot)
 */
public final class ClientSession<T> {
    /** What a session asks its shell to do; called during the session's methods. */
    public interface Output<T> {
        /** Send {@code message} to node {@code to}. */
        void send(int to, Message message);

        /** The request carrying {@code attachment} was answered (an application error is a reply too). */
        void onReply(T attachment, Reply reply);

        /** The request carrying {@code attachment} failed: timed out, given up, or the session closed. */
        void onFailure(T attachment, EveException failure);
    }

    /** How long reads go as ordered requests after a read-only attempt timed out. */
    static final long ORDINARY_READS_NANOS = 2_000_000_000L;

    /**
     * Room for every request number that can be in flight: at most {@link Request#SESSION_WINDOW} numbered
     * from a caller, plus one reissued read per slot (reissues do not wait for the window).
     */
    private static final int RING = 2 * Request.SESSION_WINDOW;

    private final int self;
    private final ClientConfig config;
    private final int[] replicas;
    private final long attemptNanos;
    private final long requestNanos;
    private final long readNanos;
    private final Slot<T>[] ring;
    private final AttemptQueue due = new AttemptQueue();
    private final Map<Long, ReadAttempt<T>> reads = new HashMap<>();
    private final ArrayDeque<ReadAttempt<T>> readsByDeadline = new ArrayDeque<>();

    private long nextSeq = 1;
    /** The lowest number still in flight, or {@link #nextSeq} when none is. */
    private long lowest = 1;

    private int outstanding;
    private int target;
    private boolean introduced;
    private long latest = Long.MIN_VALUE;
    private boolean heardFromCluster;
    private long lastHeard;
    private long nextReadSeq = 1;
    private boolean ordinaryReads;
    private long ordinaryReadsUntil;
    private long readsAnswered;
    private long readsReissued;
    private boolean closed;

    /** An ordered request in flight, or a free slot ({@code seq == 0}). */
    private static final class Slot<T> {
        long seq;
        Request request;
        T attachment;
        long openedAt;
        long resendAt;
        /** Whether this attempt already followed a redirect: a second one waits for the attempt timeout. */
        boolean redirected;
        /** Quorum profiles: the reply of each replica (by index) so far. */
        Reply[] replies;
    }

    /** A read-only request on its way to every replica (Eve §6). */
    private static final class ReadAttempt<T> {
        final Request request;
        final T attachment;
        final long deadline;
        final Reply[] answers;
        boolean finished;

        ReadAttempt(Request request, T attachment, long deadline, int replicas) {
            this.request = request;
            this.attachment = attachment;
            this.deadline = deadline;
            this.answers = new Reply[replicas];
        }
    }

    /**
     * A session of client {@code self} with {@code config}; new requests go first to the replica at index
     * {@code firstTarget} of {@code config.replicas()}.
     */
    @SuppressWarnings("unchecked")
    public ClientSession(int self, ClientConfig config, int firstTarget) {
        this.self = self;
        this.config = config;
        this.replicas = config.replicas();
        this.target = Math.floorMod(firstTarget, replicas.length);
        this.attemptNanos = config.attemptTimeout().toNanos();
        this.requestNanos = config.requestTimeout().toNanos();
        this.readNanos = config.readTimeout().toNanos();
        this.ring = (Slot<T>[]) new Slot<?>[RING];
        for (int i = 0; i < RING; i++) {
            ring[i] = new Slot<>();
            if (config.matchingReplies() > 1) {
                ring[i].replies = new Reply[replicas.length];
            }
        }
    }

    /** Whether a request may start now: fewer than {@code maxOutstanding} ordered requests and reads are on their way. */
    public boolean hasFreeSlot() {
        return outstanding < config.maxOutstanding();
    }

    /**
     * Whether a new number lies within the session window: the replicas keep replies from the lowest
     * unanswered number on, so a number may be at most {@link Request#SESSION_WINDOW} above it.
     */
    public boolean windowOpen() {
        return nextSeq - lowest < Request.SESSION_WINDOW;
    }

    /**
     * Numbers and sends an ordered request. The caller checks {@link #hasFreeSlot} and {@link #windowOpen}
     * first.
     *
     * @return the request's number
     * @throws EveException if the session was closed
     * @throws IllegalStateException if no slot is free or the window is full
     */
    public long submit(byte[] payload, T attachment, long now, Output<T> out) {
        if (closed) {
            throw new EveException("the client was closed");
        }
        if (!hasFreeSlot() || !windowOpen()) {
            throw new IllegalStateException("no free slot or no room in the session window");
        }
        outstanding++;
        return sendOrdered(open(payload, attachment, advance(now)), out);
    }

    /**
     * Sends a request that does not change the state with the read-only optimisation when it is on and no
     * read timed out in the last {@value #ORDINARY_READS_NANOS} ns, otherwise as an ordered request. The
     * caller checks {@link #hasFreeSlot} (and {@link #windowOpen}, in case it goes ordered) first.
     */
    public void read(byte[] payload, T attachment, long now, Output<T> out) {
        now = advance(now);
        if (!config.readOnlyOptimisation() || (ordinaryReads && now - ordinaryReadsUntil < 0)) {
            submit(payload, attachment, now, out);
            return;
        }
        if (closed) {
            throw new EveException("the client was closed");
        }
        if (!hasFreeSlot()) {
            throw new IllegalStateException("no free slot");
        }
        outstanding++;
        ReadAttempt<T> read = new ReadAttempt<>(
                new Request(self, nextReadSeq++, payload), attachment, now + readNanos, replicas.length);
        reads.put(read.request.requestSeq(), read);
        readsByDeadline.add(read);
        Message message = new Message.ReadRequest(read.request);
        for (int replica : replicas) {
            out.send(replica, message);
        }
    }

    /** Handles a message from the cluster. */
    public void onMessage(int from, Message message, long now, Output<T> out) {
        now = advance(now);
        heardFromCluster = true;
        lastHeard = now;
        if (message instanceof Message.ClientReply reply) {
            onReply(from, reply.reply(), out);
        } else if (message instanceof Message.ReadReply read) {
            onReadReply(from, read, now, out);
        } else if (message instanceof Message.Redirect redirect) {
            onRedirect(from, redirect, now, out);
        }
    }

    /**
     * The periodic sweep: resends every attempt whose timeout passed (to the next replica, or to all in the
     * quorum profiles), fails requests past their deadline and reissues reads past theirs.
     */
    public void onTick(long now, Output<T> out) {
        now = advance(now);
        expireReads(now, out);
        expireRequests(now, out);
        resendDue(now, out);
    }

    /**
     * Gives up on request {@code seq}: it fails with a {@link RequestTimeoutException} and leaves the
     * window, so the replicas refuse it from the next request on (it takes effect before that or never).
     *
     * @return whether it was in flight
     */
    public boolean abandon(long seq, Output<T> out) {
        Slot<T> slot = inFlight(seq);
        if (slot == null) {
            return false;
        }
        T attachment = slot.attachment;
        finish(slot);
        out.onFailure(attachment, new RequestTimeoutException("request " + seq + " was given up"));
        return true;
    }

    /** Fails every request in flight with {@code failure}; the session takes no new requests. */
    public void close(EveException failure, Output<T> out) {
        closed = true;
        for (long seq = lowest; seq < nextSeq; seq++) {
            Slot<T> slot = inFlight(seq);
            if (slot != null) {
                T attachment = slot.attachment;
                finish(slot);
                out.onFailure(attachment, failure);
            }
        }
        for (ReadAttempt<T> read : reads.values()) {
            read.finished = true;
            outstanding--;
            out.onFailure(read.attachment, failure);
        }
        reads.clear();
        readsByDeadline.clear();
    }

    /** Ordered requests and reads on their way. */
    public int outstanding() {
        return outstanding;
    }

    /** Ordered requests on their way (reads on the read-only path not counted). */
    public int ordered() {
        return outstanding - reads.size();
    }

    /** The lowest request number not yet answered (the next one when none is in flight). */
    public long lowestUnanswered() {
        return lowest;
    }

    /** The replica new ordered requests go to. */
    public int target() {
        return replicas[target];
    }

    /** Reads answered by every replica alike, without ordering. */
    public long readsAnswered() {
        return readsAnswered;
    }

    /** Reads sent again as ordered requests (answers differed, were refused, or did not all come in time). */
    public long readsReissued() {
        return readsReissued;
    }

    /** Whether anything was heard from the cluster since {@code since} (for the failure's message). */
    private boolean heardSince(long since) {
        return heardFromCluster && lastHeard - since >= 0;
    }

    /** Time never runs backwards inside the session, so its queues stay in order whoever passed {@code now}. */
    private long advance(long now) {
        if (latest == Long.MIN_VALUE || now - latest > 0) {
            latest = now;
        }
        return latest;
    }

    private Slot<T> open(byte[] payload, T attachment, long now) {
        long seq = nextSeq++;
        Slot<T> slot = ring[index(seq)];
        slot.seq = seq;
        slot.request = new Request(self, seq, lowest, payload);
        slot.attachment = attachment;
        slot.openedAt = now;
        slot.resendAt = now + attemptNanos;
        slot.redirected = false;
        due.add(seq, slot.resendAt);
        return slot;
    }

    private long sendOrdered(Slot<T> slot, Output<T> out) {
        Message message = new Message.ClientRequest(slot.request);
        if (config.matchingReplies() > 1 && !introduced) {
            // Every replica must be able to answer, and over TCP a replica reaches a client only through a
            // connection the client opened: the first request goes to all of them (the others forward it to
            // the primary), instead of waiting an attempt timeout for the broadcast retry to open the way.
            introduced = true;
            for (int replica : replicas) {
                out.send(replica, message);
            }
        } else {
            out.send(replicas[target], message);
        }
        return slot.seq;
    }

    private void onReply(int from, Reply reply, Output<T> out) {
        Slot<T> slot = inFlight(reply.requestSeq());
        if (slot == null) {
            return;
        }
        if (config.matchingReplies() <= 1) {
            complete(slot, reply, out);
            return;
        }
        int index = indexOf(from);
        if (index < 0 || reply.clientId() != self) {
            return;
        }
        // Eve §6.1: accept a reply once matchingReplies distinct replicas sent byte-identical ones.
        slot.replies[index] = reply;
        int matching = 0;
        for (Reply other : slot.replies) {
            if (reply.equals(other)) {
                matching++;
            }
        }
        if (matching >= config.matchingReplies()) {
            complete(slot, reply, out);
        }
    }

    private void onRedirect(int from, Message.Redirect redirect, long now, Output<T> out) {
        int index = indexOf(redirect.primary());
        if (index >= 0) {
            target = index;
        }
        if (config.broadcastRetries()) {
            // Quorum profiles: the replica forwarded the request to the primary it names and tells the client
            // only where to send the next ones. Sending this one again would only make a duplicate.
            return;
        }
        Slot<T> slot = inFlight(redirect.requestSeq());
        // A replica naming itself cannot serve yet (it is catching up), and two replicas that disagree on the
        // primary would bounce a request between them: follow one redirect per attempt, then wait for the
        // attempt timeout.
        if (slot != null && index >= 0 && redirect.primary() != from && !slot.redirected) {
            slot.redirected = true;
            // The request goes to another replica: that attempt gets a whole attempt timeout, as any other.
            slot.resendAt = now + attemptNanos;
            due.add(slot.seq, slot.resendAt);
            out.send(redirect.primary(), new Message.ClientRequest(slot.request));
        }
    }

    private void onReadReply(int from, Message.ReadReply message, long now, Output<T> out) {
        Reply answer = message.reply();
        ReadAttempt<T> read = reads.get(answer.requestSeq());
        int index = indexOf(from);
        if (read == null || index < 0 || answer.clientId() != self) {
            return;
        }
        if (message.reissue()) {
            reissue(read, now, out);
            return;
        }
        read.answers[index] = answer;
        int answered = 0;
        for (Reply other : read.answers) {
            if (other != null && !other.equals(answer)) {
                reissue(read, now, out);
                return;
            }
            answered += other == null ? 0 : 1;
        }
        if (answered == replicas.length) {
            reads.remove(answer.requestSeq());
            read.finished = true;
            readsAnswered++;
            outstanding--;
            out.onReply(read.attachment, answer);
        }
    }

    /** The read-only attempt failed: send the request as an ordered one, in the slot the read holds. */
    private void reissue(ReadAttempt<T> read, long now, Output<T> out) {
        reads.remove(read.request.requestSeq());
        read.finished = true;
        readsReissued++;
        sendOrdered(open(read.request.payload(), read.attachment, now), out);
    }

    private void expireReads(long now, Output<T> out) {
        while (!readsByDeadline.isEmpty()) {
            ReadAttempt<T> read = readsByDeadline.peekFirst();
            if (!read.finished && now - read.deadline < 0) {
                return;
            }
            readsByDeadline.pollFirst();
            if (!read.finished) {
                ordinaryReads = true;
                ordinaryReadsUntil = now + ORDINARY_READS_NANOS;
                reissue(read, now, out);
            }
        }
    }

    /** Deadlines grow with request numbers (each is its opening time plus the same timeout). */
    private void expireRequests(long now, Output<T> out) {
        for (long seq = lowest; seq < nextSeq; seq++) {
            Slot<T> slot = inFlight(seq);
            if (slot == null) {
                continue;
            }
            if (now - (slot.openedAt + requestNanos) < 0) {
                return;
            }
            T attachment = slot.attachment;
            String names = Arrays.toString(replicas);
            EveException failure = heardSince(slot.openedAt)
                    ? new RequestTimeoutException("request " + seq + " got no reply within " + config.requestTimeout()
                            + " from replicas " + names)
                    : new ClusterUnavailableException("no replica of " + names + " answered anything within "
                            + config.requestTimeout() + " (request " + seq + ")");
            finish(slot);
            out.onFailure(attachment, failure);
        }
    }

    private void resendDue(long now, Output<T> out) {
        boolean moved = false;
        while (!due.isEmpty() && now - due.firstTime() >= 0) {
            long seq = due.firstSeq();
            long time = due.firstTime();
            due.removeFirst();
            Slot<T> slot = inFlight(seq);
            if (slot == null || slot.resendAt != time) {
                continue;
            }
            if (!moved) {
                // One sweep moves on to the next replica once, however many requests timed out in it.
                target = (target + 1) % replicas.length;
                moved = true;
            }
            slot.resendAt = now + attemptNanos;
            slot.redirected = false;
            due.add(seq, slot.resendAt);
            Message message = new Message.ClientRequest(slot.request);
            if (config.broadcastRetries()) {
                for (int replica : replicas) {
                    out.send(replica, message);
                }
            } else {
                out.send(replicas[target], message);
            }
        }
    }

    private void complete(Slot<T> slot, Reply reply, Output<T> out) {
        T attachment = slot.attachment;
        finish(slot);
        out.onReply(attachment, reply);
    }

    /** The request leaves the flight; the lowest unanswered number moves past every finished one. */
    private void finish(Slot<T> slot) {
        slot.seq = 0;
        slot.request = null;
        slot.attachment = null;
        if (slot.replies != null) {
            Arrays.fill(slot.replies, null);
        }
        outstanding--;
        while (lowest < nextSeq && ring[index(lowest)].seq != lowest) {
            lowest++;
        }
    }

    private Slot<T> inFlight(long seq) {
        if (seq < lowest || seq >= nextSeq) {
            return null;
        }
        Slot<T> slot = ring[index(seq)];
        return slot.seq == seq ? slot : null;
    }

    private static int index(long seq) {
        return (int) (seq & (RING - 1));
    }

    private int indexOf(int node) {
        for (int i = 0; i < replicas.length; i++) {
            if (replicas[i] == node) {
                return i;
            }
        }
        return -1;
    }
}
