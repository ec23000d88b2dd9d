package io.eve.bench.deployed;

import io.eve.Reply;
import io.eve.Request;
import io.eve.protocol.Message;
import io.eve.samples.kv.KvRequest;
import io.eve.samples.kv.WorkKind;
import io.eve.server.launch.ProcessDefaults;
import io.eve.transport.netty.NettyTransport;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The deployed benchmark's unreplicated baseline: the key-value store of Eve §7.2 served by one process with
 * no replication at all, what a multithreaded server does on its own. It speaks Eve's client protocol over
 * the same transport (so the load JVM drives it with the same {@code EveClient} and driver), hands each
 * request from the event loop to a pool of {@code --threads} execution threads, and runs it under its
 * object's lock: the same work ({@link WorkKind}), the same object size, the same replies as {@code
 * KeyValueStore}, but the objects are plain arrays (no state tracking, no hashing, no batching, no tokens).
 *
 * <p>Ordered requests only ({@code EveClient.submit}): a read-only {@code ReadRequest} is not answered (the load
 * never sends one). It keeps no reply cache: a request number a client already sent is not executed again but counted and
 * dropped (the load's attempt timeout is far above any queueing delay, so none is expected; the status line
 * says if one came). Thread-safe; {@link #main} runs until the process is killed.
 */
@Command(
        name = "unreplicated-server",
        mixinStandardHelpOptions = true,
        description = "The key-value store served by one unreplicated process (the deployed benchmark's baseline).")
public final class UnreplicatedServer implements Callable<Integer>, AutoCloseable {
    /** The node id the server answers as; the load's client config names it as its only replica. */
    public static final int NODE = 0;

    @Option(names = "--port", required = true, description = "TCP port on 127.0.0.1 (0: any free one).")
    int port;

    @Option(names = "--objects", defaultValue = "1000", description = "Objects (default ${DEFAULT-VALUE}).")
    int objects;

    @Option(
            names = "--object-size",
            defaultValue = "1024",
            description = "Bytes per object (default ${DEFAULT-VALUE}).")
    int objectSize;

    @Option(names = "--work-us", defaultValue = "0", description = "Work per request, microseconds.")
    long workMicros;

    @Option(
            names = "--work-kind",
            defaultValue = "BLOCKING",
            description = "CPU or BLOCKING (default ${DEFAULT-VALUE}).")
    WorkKind workKind;

    @Option(names = "--threads", defaultValue = "4", description = "Execution threads (default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--status-every-ms", defaultValue = "5000", description = "Status line period; 0: none.")
    long statusEveryMillis;

    private final AtomicLong executed = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    /** Per client, the highest request number received (on the event loop, before execution). */
    private final ConcurrentHashMap<Long, AtomicLong> highestSeq = new ConcurrentHashMap<>();

    private byte[][] values;
    private long[] versions;
    private Object[] locks;
    private ExecutorService pool;
    private NettyTransport transport;
    private volatile long workSink;

    /** Runs the server; see the class comment. */
    public static void main(String[] args) {
        // The same Netty settings as the replicas it is the baseline of.
        ProcessDefaults.apply();
        System.exit(new CommandLine(new UnreplicatedServer()).execute(args));
    }

    /** A server with the given shape, not started. */
    public static UnreplicatedServer of(int port, int objects, int objectSize, long workMicros, int threads) {
        UnreplicatedServer server = new UnreplicatedServer();
        server.port = port;
        server.objects = objects;
        server.objectSize = objectSize;
        server.workMicros = workMicros;
        server.workKind = WorkKind.BLOCKING;
        server.threads = threads;
        server.statusEveryMillis = 0;
        return server;
    }

    @Override
    public Integer call() throws Exception {
        start();
        System.out.println("unreplicated server on " + address() + ": " + objects + " objects of " + objectSize + " B, "
                + workMicros + " us " + workKind + " work, " + threads + " threads");
        if (statusEveryMillis <= 0) {
            new CountDownLatch(1).await();
        }
        long last = 0;
        while (true) {
            Thread.sleep(statusEveryMillis);
            long now = executed.get();
            System.out.printf(
                    "executed %d (%d per %d ms), duplicates dropped %d, failed %d%n",
                    now, now - last, statusEveryMillis, duplicates.get(), failed.get());
            last = now;
        }
    }

    /**
     * Builds the store and listens.
     *
     * @throws IllegalArgumentException if a setting is out of range
     */
    public void start() {
        if (objects < 1 || objectSize < 1 || workMicros < 0 || threads < 1 || port < 0 || port > 65535) {
            throw new IllegalArgumentException("need objects >= 1, object size >= 1, work >= 0, threads >= 1 and a"
                    + " port in [0, 65535]; got " + objects + ", " + objectSize + ", " + workMicros + ", " + threads
                    + ", " + port);
        }
        values = new byte[objects][];
        versions = new long[objects];
        locks = new Object[objects];
        for (int id = 0; id < objects; id++) {
            // The initial content of KeyValueStore's objects.
            values[id] = new byte[objectSize];
            new SplittableRandom(id).nextBytes(values[id]);
            locks[id] = new Object();
        }
        pool = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "kv-server");
            thread.setDaemon(true);
            return thread;
        });
        ((ThreadPoolExecutor) pool).prestartAllCoreThreads();
        transport = NettyTransport.builder()
                .self(NODE)
                .listen(new InetSocketAddress("127.0.0.1", port))
                .build();
        transport.start(this::onMessage);
    }

    /** Where the server listens (after {@link #start}). */
    public InetSocketAddress address() {
        return transport.boundAddress();
    }

    /** Requests executed so far. */
    public long executed() {
        return executed.get();
    }

    /** Requests dropped because their client had sent that number already. */
    public long duplicates() {
        return duplicates.get();
    }

    /** The version of object {@code id} (updates applied to it). */
    public long version(int id) {
        synchronized (locks[id]) {
            return versions[id];
        }
    }

    private void onMessage(int from, Message message) {
        if (!(message instanceof Message.ClientRequest clientRequest)) {
            return;
        }
        Request request = clientRequest.request();
        AtomicLong highest = highestSeq.computeIfAbsent(request.clientId(), client -> new AtomicLong(-1));
        if (request.requestSeq() <= highest.get()) {
            duplicates.incrementAndGet();
            return;
        }
        highest.set(request.requestSeq());
        pool.execute(() -> transport.send(from, new Message.ClientReply(execute(request))));
    }

    private Reply execute(Request request) {
        try {
            KvRequest kv = KvRequest.decode(request.payload());
            if (kv.id() < 0 || kv.id() >= objects) {
                throw new IllegalArgumentException("no object " + kv.id() + ": the store holds " + objects
                        + " objects, ids 0 to " + (objects - 1));
            }
            int id = (int) kv.id();
            byte[] answer;
            synchronized (locks[id]) {
                if (workMicros > 0) {
                    workSink = workKind.perform(workMicros, id);
                }
                answer = apply(kv, id);
            }
            executed.incrementAndGet();
            return Reply.of(request, answer);
        } catch (RuntimeException e) {
            failed.incrementAndGet();
            return Reply.failure(request, e);
        }
    }

    /** Under the object's lock. */
    private byte[] apply(KvRequest kv, int id) {
        if (kv instanceof KvRequest.Read) {
            return values[id].clone();
        }
        byte[] value;
        if (kv instanceof KvRequest.Update update) {
            if (update.value().length != objectSize) {
                throw new IllegalArgumentException("an UPDATE of object " + id + " carries " + update.value().length
                        + " bytes; objects here are " + objectSize + " bytes");
            }
            value = update.value().clone();
        } else {
            value = new byte[objectSize];
            new SplittableRandom(((KvRequest.SeededUpdate) kv).seed() ^ versions[id]).nextBytes(value);
        }
        values[id] = value;
        versions[id]++;
        return ByteBuffer.allocate(Long.BYTES).putLong(versions[id]).array();
    }

    @Override
    public void close() {
        if (transport != null) {
            transport.close();
        }
        if (pool != null) {
            pool.shutdownNow();
            try {
                pool.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
