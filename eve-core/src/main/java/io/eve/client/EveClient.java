package io.eve.client;

import io.eve.EveException;
import io.eve.Reply;
import io.eve.protocol.Message;
import io.eve.transport.Transport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Talks to a replicated service: sends each request to the replica it believes is the primary, follows
 * redirects (a backup names the primary), and after an attempt timeout resends the same request, with
 * the same number, to the next replica, so a failover never applies a request twice (the replicas'
 * reply cache answers a retry with the original reply). At most {@code maxOutstanding} requests are in
 * flight: {@link #submit} waits for a slot (back-pressure).
 *
 * <p>One client carries many concurrent requests from many threads; the replicas run them in parallel when
 * the application's conflict keys allow (requests in flight together are concurrent, so any order is
 * linearizable). Exactly-once holds through a session (docs/protocol.md, "Client sessions"): every request
 * also carries the client's lowest request number still waiting for a reply, and the replicas keep the
 * replies from that number on, so every request the client may still retry is answered from them. A request
 * number is never more than {@link io.eve.Request#SESSION_WINDOW} above that lowest one: {@link #submit} waits
 * while the oldest request in flight holds the window back. A request that timed out is given up: the
 * replicas refuse it from then on, so it takes effect before its timeout or never.
 *
 * <p>For the quorum profiles ({@link ClientConfig#withQuorumReplies}) a reply is accepted only once
 * {@code matchingReplies} distinct replicas sent byte-identical replies for the request (so a single
 * lying replica is never believed when {@code r = 1}), and a request whose attempt timed out goes to
 * every replica, still with the same number: the replicas forward it to the primary or answer it from
 * their committed replies, so it is applied at most once.
 *
 * <p>{@link #read} is Eve §6's read-only optimisation: the request goes to every replica, each runs it
 * outside the batches and answers once the state it read committed, and the answer is accepted only if
 * every replica sent the same one. That makes the read linearizable (a write acknowledged before the read
 * began committed at a replica whose answer is among them, so the common answer reflects it); a missing,
 * different or refused answer sends the request again as an ordered one. After a read timed out the client
 * sends reads as ordered requests for a while (a replica is down or slow, so they would all wait).
 *
 * <p>The protocol itself is a {@link ClientSession} (sans-IO); this class is its shell: one transport (one
 * connection per replica) shared by every thread that uses the client, requests pipelined over it, one
 * lock around the session, and one timer thread that sweeps the session's timeouts a few times per attempt
 * timeout (no timer per request). Futures complete outside the lock, on the thread that delivered the reply
 * (the transport's) or ran the sweep.
 *
 * <p>Thread-safe. The client id is the transport's node id; two clients must not share one.
 */
public final class EveClient implements AutoCloseable {
    private final Transport transport;
    private final ClientConfig config;
    /** The session, also the lock and monitor every call into it holds. */
    private final ClientSession<CompletableFuture<Reply>> session;

    private final ScheduledExecutorService timer;
    /** Callers waiting in {@link #admit} for a slot or window room; guarded by {@link #session}. */
    private int waiting;
    /** Each thread's finished requests, completed once it let go of the lock. */
    private final ThreadLocal<Finished> finished;

    /**
     * A client of {@code cluster} over TCP, with a fresh random client id (clients whose lives overlap must
     * not share one), the cluster's replicas, reply quorum and frame limit, and a 15 s request timeout. With
     * {@code tls.enabled} the client presents the certificate of {@code tls.dir/tls.client} and its id is
     * drawn from the ids that certificate grants.
     */
    public static EveClient connect(io.eve.config.ClusterConfig cluster) {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        if (!cluster.tls().enabled()) {
            return connect(cluster, random.nextInt(1_000_000, Integer.MAX_VALUE - 100_000));
        }
        io.eve.transport.netty.tls.TlsIdentity identity =
                io.eve.transport.netty.tls.TlsIdentity.loadClient(cluster.tls().clientFolder());
        io.eve.transport.netty.tls.PeerIdentity granted = identity.identity();
        int id = (int) random.nextLong(granted.firstClient(), (long) granted.lastClient() + 1);
        return connect(cluster, id, identity);
    }

    /**
     * As {@link #connect(io.eve.config.ClusterConfig)}, with the client id {@code clientId} (with
     * {@code tls.enabled}, one the client's certificate grants).
     */
    public static EveClient connect(io.eve.config.ClusterConfig cluster, int clientId) {
        return connect(
                cluster,
                clientId,
                cluster.tls().enabled()
                        ? io.eve.transport.netty.tls.TlsIdentity.loadClient(
                                cluster.tls().clientFolder())
                        : null);
    }

    private static EveClient connect(
            io.eve.config.ClusterConfig cluster, int clientId, io.eve.transport.netty.tls.TlsIdentity tls) {
        if (tls != null && !tls.identity().allows(clientId)) {
            throw new IllegalArgumentException("client id " + clientId + " is not granted by the certificate of "
                    + tls.identity() + " in " + tls.folder());
        }
        for (io.eve.config.NodeAddress node : cluster.nodes()) {
            if (node.id() == clientId) {
                throw new IllegalArgumentException(
                        "client id " + clientId + " is a replica's id in " + cluster.nodes());
            }
        }
        java.util.Map<Integer, java.net.InetSocketAddress> peers = new java.util.HashMap<>();
        for (io.eve.config.NodeAddress node : cluster.nodes()) {
            peers.put(node.id(), new java.net.InetSocketAddress(node.host(), node.port()));
        }
        io.eve.transport.netty.NettyTransport.Builder builder = io.eve.transport.netty.NettyTransport.builder()
                .self(clientId)
                .peers(peers)
                .maxFrameBytes(cluster.maxFrameBytes())
                .io(cluster.socketIo());
        if (tls != null) {
            builder.tls(tls);
        }
        Transport transport = builder.build();
        return new EveClient(transport, ClientConfig.forCluster(cluster, java.time.Duration.ofSeconds(15)));
    }

    public EveClient(Transport transport, ClientConfig config) {
        this.transport = transport;
        this.config = config;
        this.session = new ClientSession<>(transport.self(), config, 0);
        this.finished = ThreadLocal.withInitial(() -> new Finished(transport));
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "eve-client-" + transport.self());
            thread.setDaemon(true);
            return thread;
        });
        transport.start(this::onMessage);
        long period = Math.max(1, config.attemptTimeout().toMillis() / 4);
        timer.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * Sends a request; the future completes with its reply (an application error is a reply with
     * {@code error()} set) or fails with {@link RequestTimeoutException}. Waits while
     * {@code maxOutstanding} requests are in flight.
     *
     * @throws RequestTooLargeException if the payload exceeds {@code maxRequestBytes}
     */
    public CompletableFuture<Reply> submit(byte[] payload) {
        checkSize(payload);
        CompletableFuture<Reply> result = new CompletableFuture<>();
        Finished out = finished.get();
        synchronized (session) {
            admit();
            session.submit(payload, result, System.nanoTime(), out);
        }
        out.deliver(this);
        return result;
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
    public CompletableFuture<Reply> read(byte[] payload) {
        checkSize(payload);
        CompletableFuture<Reply> result = new CompletableFuture<>();
        Finished out = finished.get();
        synchronized (session) {
            admit();
            session.read(payload, result, System.nanoTime(), out);
        }
        out.deliver(this);
        return result;
    }

    /** Reads answered by every replica alike, without ordering. */
    public long readsAnswered() {
        synchronized (session) {
            return session.readsAnswered();
        }
    }

    /** Reads sent again as ordered requests (answers differed, were refused, or did not all come in time). */
    public long readsReissued() {
        synchronized (session) {
            return session.readsReissued();
        }
    }

    /** Sends a request and waits for its reply. */
    public Reply call(byte[] payload) {
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
    public int outstanding() {
        synchronized (session) {
            return session.ordered();
        }
    }

    private void checkSize(byte[] payload) {
        if (payload.length > config.maxRequestBytes()) {
            throw new RequestTooLargeException(
                    "a request of " + payload.length + " bytes exceeds the maximum of " + config.maxRequestBytes());
        }
    }

    /**
     * Waits, holding the session's monitor, for a free slot (back-pressure, as long as it takes) and then for
     * room in the session window (at most the request timeout: the oldest request holds the window back).
     */
    private void admit() {
        try {
            while (!session.hasFreeSlot()) {
                await(0);
            }
            long deadline = System.nanoTime() + config.requestTimeout().toNanos();
            while (!session.windowOpen() || !session.hasFreeSlot()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new RequestTimeoutException("request " + session.lowestUnanswered() + " held the session"
                            + " window for " + config.requestTimeout() + ": no new request could be numbered");
                }
                await(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EveException("interrupted while waiting for a free request slot", e);
        }
    }

    private void await(long nanos) throws InterruptedException {
        waiting++;
        try {
            if (nanos == 0) {
                session.wait();
            } else {
                TimeUnit.NANOSECONDS.timedWait(session, nanos);
            }
        } finally {
            waiting--;
        }
    }

    private void onMessage(int from, Message message) {
        Finished out = finished.get();
        synchronized (session) {
            session.onMessage(from, message, System.nanoTime(), out);
            out.wakeWaiters(this);
        }
        out.deliver(this);
    }

    private void sweep() {
        Finished out = finished.get();
        synchronized (session) {
            session.onTick(System.nanoTime(), out);
            out.wakeWaiters(this);
        }
        out.deliver(this);
    }

    @Override
    public void close() {
        timer.shutdownNow();
        transport.close();
        Finished out = finished.get();
        synchronized (session) {
            session.close(new EveException("the client was closed"), out);
            out.wakeWaiters(this);
        }
        out.deliver(this);
    }

    /**
     * What one thread's call into the session produced: frames are sent at once (under the lock, so requests
     * leave in the order they were numbered), finished requests are kept and their futures completed after
     * the lock is released, so no caller's continuation ever runs holding it. A continuation that submits
     * again on the same thread appends to the list being delivered; the outer delivery completes it.
     */
    private static final class Finished implements ClientSession.Output<CompletableFuture<Reply>> {
        private final Transport transport;

        @SuppressWarnings("unchecked")
        private CompletableFuture<Reply>[] futures = (CompletableFuture<Reply>[]) new CompletableFuture<?>[8];

        private Object[] outcomes = new Object[8];
        private int count;
        private boolean delivering;

        Finished(Transport transport) {
            this.transport = transport;
        }

        @Override
        public void send(int to, Message message) {
            transport.send(to, message);
        }

        @Override
        public void onReply(CompletableFuture<Reply> future, Reply reply) {
            add(future, reply);
        }

        @Override
        public void onFailure(CompletableFuture<Reply> future, EveException failure) {
            add(future, failure);
        }

        private void add(CompletableFuture<Reply> future, Object outcome) {
            if (count == futures.length) {
                futures = java.util.Arrays.copyOf(futures, count * 2);
                outcomes = java.util.Arrays.copyOf(outcomes, count * 2);
            }
            futures[count] = future;
            outcomes[count] = outcome;
            count++;
        }

        /** Called holding the session's lock: a finished request freed a slot someone waits for. */
        void wakeWaiters(EveClient client) {
            if (count > 0 && client.waiting > 0) {
                client.session.notifyAll();
            }
        }

        void deliver(EveClient client) {
            if (delivering) {
                return;
            }
            delivering = true;
            try {
                for (int i = 0; i < count; i++) {
                    CompletableFuture<Reply> future = futures[i];
                    Object outcome = outcomes[i];
                    futures[i] = null;
                    outcomes[i] = null;
                    if (outcome instanceof Reply reply) {
                        future.complete(reply);
                    } else {
                        future.completeExceptionally((Throwable) outcome);
                    }
                }
            } finally {
                count = 0;
                delivering = false;
            }
        }
    }
}
