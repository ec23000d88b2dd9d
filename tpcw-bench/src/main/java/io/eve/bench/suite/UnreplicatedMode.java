package io.eve.bench.suite;

import io.eve.ExecutionContext;
import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.KvRequest;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The store served by a plain, unreplicated server: a pool of execution threads, each request under its
 * object's lock (what a multithreaded server does without replication). With one thread it is the
 * sequential baseline every speedup is measured against. No hashing, no batching, no network.
 */
final class UnreplicatedMode implements Mode {
    private static final int LOCK_STRIPES = 4096;

    private final boolean sequential;

    UnreplicatedMode(boolean sequential) {
        this.sequential = sequential;
    }

    @Override
    public String id() {
        return sequential ? "unreplicated-seq" : "unreplicated";
    }

    @Override
    public String label() {
        return sequential ? "unreplicated, 1 thread" : "unreplicated, T threads";
    }

    @Override
    public int executionReplicas() {
        return 1;
    }

    @Override
    public boolean usesThreads() {
        return !sequential;
    }

    @Override
    public Running start(Workload workload, ClientSide clients) {
        int threads = sequential ? 1 : workload.threads();
        return new Server(workload.newStore(), threads);
    }

    /** The running server; requests are submitted from the clients' threads and executed on the pool. */
    private static final class Server implements Running {
        private final KeyValueStore store;
        private final ExecutorService pool;
        private final Object[] locks = new Object[LOCK_STRIPES];
        private final AtomicLong seq = new AtomicLong();

        Server(KeyValueStore store, int threads) {
            this.store = store;
            this.pool = Executors.newFixedThreadPool(threads, runnable -> {
                Thread thread = new Thread(runnable, "kv-server");
                thread.setDaemon(true);
                return thread;
            });
            // Started here, not on the first request: a thread started by a client would count as a client's.
            ((java.util.concurrent.ThreadPoolExecutor) pool).prestartAllCoreThreads();
            for (int i = 0; i < locks.length; i++) {
                locks[i] = new Object();
            }
        }

        @Override
        public void call(int client, byte[] request) throws Exception {
            long id = KvRequest.decode(request).id();
            pool.submit(() -> {
                        synchronized (locks[(int) (id % LOCK_STRIPES)]) {
                            long n = seq.incrementAndGet();
                            return store.execute(request, new ExecutionContext(n, 0, 0, n, client, n));
                        }
                    })
                    .get();
        }

        @Override
        public Check check() {
            return Check.passed("executed " + seq.get() + " requests");
        }

        @Override
        public void close() {
            pool.shutdownNow();
        }
    }
}
