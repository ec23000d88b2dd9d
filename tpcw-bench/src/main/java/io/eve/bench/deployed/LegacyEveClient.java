package io.eve.bench.deployed;

import io.eve.EveException;
import io.eve.Reply;
import io.eve.Request;
import io.eve.client.ClientConfig;
import io.eve.client.ClusterUnavailableException;
import io.eve.client.RequestTimeoutException;
import io.eve.client.RequestTooLargeException;
import io.eve.protocol.Message;
import io.eve.transport.Transport;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The benchmark's baseline: {@code io.eve.client.EveClient} as it was before it became a shell over {@code
 * ClientSession} (build 7580a52), kept so that {@link DeployedBenchmark} can measure the old client and the
 * new one in the same run (system names with {@code /legacy-client}). Not for applications: no TLS, and its
 * rules are not the ones the simulator checks. Thread-safe.
 */
final class LegacyEveClient implements AutoCloseable {
    private final Transport transport;
    private final ClientConfig config;
    /** Guards request numbering, so a request's lowest unanswered number counts every earlier request. */
    private final Object session = new Object();
    /** The next request number; guarded by {@link #session}. */
    private long nextSeq = 1;

    private final AtomicInteger windowWaiters = new AtomicInteger();
    /** Whether an ordered request went to every replica yet (quorum profiles: see {@link #sendOrdered}). */
    private final AtomicBoolean introduced = new AtomicBoolean();

    /** Requests in flight by number: the first is the lowest unanswered one. */
    private final ConcurrentNavigableMap<Long, Attempt> inFlight = new ConcurrentSkipListMap<>();

    private final Semaphore slots;
    private final ScheduledExecutorService timer;
    private volatile int target;
    private volatile long lastHeardFromCluster = Long.MIN_VALUE;
    private final AtomicLong nextReadSeq = new AtomicLong(1);
    private final Map<Long, ReadAttempt> reads = new ConcurrentHashMap<>();
    private volatile long ordinaryReadsUntil = System.nanoTime();
    private final AtomicLong readsAnswered = new AtomicLong();
    private final AtomicLong readsReissued = new AtomicLong();

    /** How long reads go as ordered requests after a read-only attempt timed out. */
    private static final long ORDINARY_READS_NANOS = 2_000_000_000L;

    /** A read-only request on its way to every replica (Eve §6). */
    private final class ReadAttempt {
        final Request request;
        final CompletableFuture<Reply> result = new CompletableFuture<>();
        final long deadline;
        final Map<Integer, Reply> answers = new ConcurrentHashMap<>();

        ReadAttempt(Request request, long now) {
            this.request = request;
            this.deadline = now + config.readTimeout().toNanos();
        }
    }

    /** A request on its way, with the replica it was last sent to. */
    private final class Attempt {
        final Request request;
        final CompletableFuture<Reply> result = new CompletableFuture<>();
        final long sentAt;
        final long deadline;
        volatile long resendAt;
        /** Replies received so far from distinct replicas, when more than one must match. */
        final Map<Integer, Reply> replies = new ConcurrentHashMap<>();

        Attempt(Request request, long now) {
            this.request = request;
            this.sentAt = now;
            this.deadline = now + config.requestTimeout().toNanos();
            this.resendAt = now + config.attemptTimeout().toNanos();
        }
    }

    /** A client of {@code cluster} over TCP, with a fresh random client id and a 15 s request timeout. */
    static LegacyEveClient connect(io.eve.config.ClusterConfig cluster) {
        int clientId = java.util.concurrent.ThreadLocalRandom.current().nextInt(1_000_000, Integer.MAX_VALUE - 100_000);
        java.util.Map<Integer, java.net.InetSocketAddress> peers = new java.util.HashMap<>();
        for (io.eve.config.NodeAddress node : cluster.nodes()) {
            peers.put(node.id(), new java.net.InetSocketAddress(node.host(), node.port()));
        }
        Transport transport = io.eve.transport.netty.NettyTransport.builder()
                .self(clientId)
                .peers(peers)
                .maxFrameBytes(cluster.maxFrameBytes())
                .build();
        return new LegacyEveClient(transport, ClientConfig.forCluster(cluster, java.time.Duration.ofSeconds(15)));
    }

    LegacyEveClient(Transport transport, ClientConfig config) {
        this.transport = transport;
        this.config = config;
        this.slots = new Semaphore(config.maxOutstanding());
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "eve-client-" + transport.self());
            thread.setDaemon(true);
            return thread;
        });
        transport.start(this::onMessage);
        long period = Math.max(1, config.attemptTimeout().toMillis() / 4);
        timer.scheduleAtFixedRate(this::checkTimeouts, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * Sends a request; the future completes with its reply (an application error is a reply with
     * {@code error()} set) or fails with {@link RequestTimeoutException}. Waits while
     * {@code maxOutstanding} requests are in flight.
     *
     * @throws RequestTooLargeException if the payload exceeds {@code maxRequestBytes}
     */
    CompletableFuture<Reply> submit(byte[] payload) {
        acquireSlot(payload);
        try {
            return sendOrdered(open(payload, true));
        } catch (RuntimeException e) {
            slots.release();
            throw e;
        }
    }

    /**
     * Sends a request that does not change the state with Eve §6's read-only optimisation: to every
     * replica, accepted when all of them answer the same, otherwise (or after {@code readTimeout}) sent
     * again as an ordered request, so the result is always the one an ordered request could have had. The
     * reply's {@code requestSeq} numbers reads apart from ordered requests when the fast path answered.
     * The application must not write to the state in such a request: replicas discard its writes and
     * refuse the answer, and the ordered retry then applies them.
     *
     * @throws RequestTooLargeException if the payload exceeds {@code maxRequestBytes}
     */
    CompletableFuture<Reply> read(byte[] payload) {
        acquireSlot(payload);
        long now = System.nanoTime();
        if (!config.readOnlyOptimisation() || now - ordinaryReadsUntil < 0) {
            try {
                return sendOrdered(open(payload, true));
            } catch (RuntimeException e) {
                slots.release();
                throw e;
            }
        }
        ReadAttempt attempt =
                new ReadAttempt(new Request(transport.self(), nextReadSeq.getAndIncrement(), payload), now);
        reads.put(attempt.request.requestSeq(), attempt);
        for (int replica : config.replicas()) {
            transport.send(replica, new Message.ReadRequest(attempt.request));
        }
        return attempt.result;
    }

    /** Reads answered by every replica alike, without ordering. */
    long readsAnswered() {
        return readsAnswered.get();
    }

    /** Reads sent again as ordered requests (answers differed, were refused, or did not all come in time). */
    long readsReissued() {
        return readsReissued.get();
    }

    private void acquireSlot(byte[] payload) {
        if (payload.length > config.maxRequestBytes()) {
            throw new RequestTooLargeException(
                    "a request of " + payload.length + " bytes exceeds the maximum of " + config.maxRequestBytes());
        }
        try {
            slots.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EveException("interrupted while waiting for a free request slot", e);
        }
    }

    /**
     * Numbers a new ordered request and puts it in flight, in one step so that its lowest unanswered number
     * counts every request numbered before it. With {@code mayWait} (a caller's thread) it first waits
     * while the new number would lie beyond the session window.
     */
    private Attempt open(byte[] payload, boolean mayWait) {
        synchronized (session) {
            long now = System.nanoTime();
            long deadline = now + config.requestTimeout().toNanos();
            while (mayWait && nextSeq - lowestUnanswered(nextSeq) >= Request.SESSION_WINDOW) {
                awaitWindow(deadline - now);
                now = System.nanoTime();
                if (now - deadline >= 0) {
                    throw new RequestTimeoutException("request " + lowestUnanswered(nextSeq) + " held the session"
                            + " window for " + config.requestTimeout() + ": no new request could be numbered");
                }
            }
            long seq = nextSeq++;
            Attempt attempt = new Attempt(new Request(transport.self(), seq, lowestUnanswered(seq), payload), now);
            inFlight.put(seq, attempt);
            return attempt;
        }
    }

    private long lowestUnanswered(long next) {
        Map.Entry<Long, Attempt> first = inFlight.firstEntry();
        return first == null ? next : first.getKey();
    }

    /** Waits, holding nothing but the session's monitor, until a request leaves the flight. */
    private void awaitWindow(long nanos) {
        windowWaiters.incrementAndGet();
        try {
            TimeUnit.NANOSECONDS.timedWait(session, Math.max(1, nanos));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EveException("interrupted while the session window was full", e);
        } finally {
            windowWaiters.decrementAndGet();
        }
    }

    /** A request left the flight (answered, timed out, closed): wake a caller waiting for the window. */
    private void onFinished() {
        slots.release();
        if (windowWaiters.get() > 0) {
            synchronized (session) {
                session.notifyAll();
            }
        }
    }

    /** Sends an ordered request in a slot already taken; the slot is freed when it completes. */
    private CompletableFuture<Reply> sendOrdered(Attempt attempt) {
        Request request = attempt.request;
        attempt.result.whenComplete((reply, failure) -> onFinished());
        if (config.matchingReplies() > 1 && introduced.compareAndSet(false, true)) {
            // Every replica must be able to answer, and over TCP a replica reaches a client only through a
            // connection the client opened: the first request goes to all of them (the others forward it to
            // the primary), instead of waiting an attempt timeout for the broadcast retry to open the way.
            for (int replica : config.replicas()) {
                transport.send(replica, new Message.ClientRequest(request));
            }
        } else {
            transport.send(target(), new Message.ClientRequest(request));
        }
        return attempt.result;
    }

    /** Sends a request and waits for its reply. */
    Reply call(byte[] payload) {
        try {
            return submit(payload).get(config.requestTimeout().toNanos() + 1_000_000_000L, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EveException("interrupted while waiting for a reply", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof EveException eve ? eve : new EveException("request failed", e.getCause());
        } catch (TimeoutException e) {
            throw new RequestTimeoutException("no reply within " + config.requestTimeout());
        }
    }

    /** Requests sent and not yet answered. */
    int outstanding() {
        return inFlight.size();
    }

    private int target() {
        return config.replicas()[Math.floorMod(target, config.replicas().length)];
    }

    private void onMessage(int from, Message message) {
        lastHeardFromCluster = System.nanoTime();
        if (message instanceof Message.ReadReply read) {
            onReadReply(from, read);
        } else if (message instanceof Message.ClientReply reply) {
            Reply received = reply.reply();
            if (config.matchingReplies() <= 1) {
                Attempt done = inFlight.remove(received.requestSeq());
                if (done != null) {
                    done.result.complete(received);
                }
            } else {
                onQuorumReply(from, received);
            }
        } else if (message instanceof Message.Redirect redirect) {
            pointAt(redirect.primary());
            if (config.broadcastRetries()) {
                // Quorum profiles: the replica forwarded the request to the primary it names and tells the client
                // only where to send the next ones (it learns a new view at once, not by timing out at the old
                // primary). Sending this one again would only make a duplicate.
                return;
            }
            Attempt again = inFlight.get(redirect.requestSeq());
            // A replica naming itself cannot serve yet (it is catching up): wait for the attempt timeout
            // instead of asking it again at once.
            if (again != null && redirect.primary() != from) {
                transport.send(redirect.primary(), new Message.ClientRequest(again.request));
            }
        }
    }

    /** Accept a reply once {@code matchingReplies} distinct replicas sent one equal to it. */
    private void onQuorumReply(int from, Reply received) {
        Attempt attempt = inFlight.get(received.requestSeq());
        if (attempt == null || !isReplica(from) || received.clientId() != transport.self()) {
            return;
        }
        attempt.replies.put(from, received);
        long matching =
                attempt.replies.values().stream().filter(received::equals).count();
        if (matching >= config.matchingReplies() && inFlight.remove(received.requestSeq(), attempt)) {
            attempt.result.complete(received);
        }
    }

    /** Accept a read-only answer once every replica sent it; reissue on the first refusal or difference. */
    private void onReadReply(int from, Message.ReadReply read) {
        Reply answer = read.reply();
        ReadAttempt attempt = reads.get(answer.requestSeq());
        if (attempt == null || !isReplica(from) || answer.clientId() != transport.self()) {
            return;
        }
        if (read.reissue()) {
            reissue(attempt);
            return;
        }
        attempt.answers.put(from, answer);
        if (attempt.answers.values().stream().anyMatch(other -> !other.equals(answer))) {
            reissue(attempt);
        } else if (attempt.answers.size() == config.replicas().length && reads.remove(answer.requestSeq(), attempt)) {
            readsAnswered.incrementAndGet();
            slots.release();
            attempt.result.complete(answer);
        }
    }

    /** The read-only attempt failed: send the request as an ordered one, in the slot the read holds. */
    private void reissue(ReadAttempt attempt) {
        if (!reads.remove(attempt.request.requestSeq(), attempt)) {
            return;
        }
        readsReissued.incrementAndGet();
        sendOrdered(open(attempt.request.payload(), false)).whenComplete((reply, failure) -> {
            if (failure != null) {
                attempt.result.completeExceptionally(failure);
            } else {
                attempt.result.complete(reply);
            }
        });
    }

    private boolean isReplica(int node) {
        for (int replica : config.replicas()) {
            if (replica == node) {
                return true;
            }
        }
        return false;
    }

    private void pointAt(int replica) {
        for (int i = 0; i < config.replicas().length; i++) {
            if (config.replicas()[i] == replica) {
                target = i;
            }
        }
    }

    private void checkTimeouts() {
        long now = System.nanoTime();
        for (ReadAttempt read : reads.values()) {
            if (now - read.deadline >= 0) {
                ordinaryReadsUntil = now + ORDINARY_READS_NANOS;
                reissue(read);
            }
        }
        boolean moved = false;
        for (Attempt attempt : inFlight.values()) {
            if (now - attempt.deadline >= 0) {
                inFlight.remove(attempt.request.requestSeq());
                String replicas = java.util.Arrays.toString(config.replicas());
                boolean silent = lastHeardFromCluster == Long.MIN_VALUE || lastHeardFromCluster - attempt.sentAt < 0;
                attempt.result.completeExceptionally(
                        silent
                                ? new ClusterUnavailableException("no replica of " + replicas
                                        + " answered anything within " + config.requestTimeout() + " (request "
                                        + attempt.request.requestSeq() + ")")
                                : new RequestTimeoutException("request " + attempt.request.requestSeq()
                                        + " got no reply within " + config.requestTimeout() + " from replicas "
                                        + replicas));
            } else if (now - attempt.resendAt >= 0) {
                if (!moved) {
                    target++;
                    moved = true;
                }
                attempt.resendAt = now + config.attemptTimeout().toNanos();
                if (config.broadcastRetries()) {
                    for (int replica : config.replicas()) {
                        transport.send(replica, new Message.ClientRequest(attempt.request));
                    }
                } else {
                    transport.send(target(), new Message.ClientRequest(attempt.request));
                }
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        transport.close();
        for (Attempt attempt : inFlight.values()) {
            attempt.result.completeExceptionally(new EveException("the client was closed"));
        }
        inFlight.clear();
        for (ReadAttempt read : reads.values()) {
            read.result.completeExceptionally(new EveException("the client was closed"));
        }
        reads.clear();
    }
}
