package io.eve.rdma.bench;

import io.eve.protocol.Message;
import io.eve.rdma.RdmaTransport;
import io.eve.rdma.memory.InMemoryFabric;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * How much CPU an idle RDMA transport burns (docs/benchmarks.md, "RDMA transport at idle"): two nodes on
 * the in-memory fabric open their rings with one message each way, then sit idle; the CPU time of their
 * "rdma-node" threads over the idle window ({@link ThreadMXBean}) is printed as a share of one core, for
 * the default longest idle park (1 ms) and for shorter ones in the same run. A measurement, not a test.
 *
 * <p>Arguments: idle seconds (default 10), then longest parks in microseconds (default 1000 100 10). System
 * property {@code bench.doorbells} (default true) turns the transports' doorbells on or off.
 */
public final class IdleCpu {
    private IdleCpu() {}

    /** Runs the measurement; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        long[] parks = args.length > 1
                ? java.util.Arrays.stream(args, 1, args.length)
                        .mapToLong(Long::parseLong)
                        .toArray()
                : new long[] {1_000, 100, 10};
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        boolean doorbells = Boolean.parseBoolean(System.getProperty("bench.doorbells", "true"));
        System.out.printf(
                "idle %d s, %d CPUs, %s, doorbells %s%n",
                seconds,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                doorbells ? "on" : "off");
        for (long park : parks) {
            double share = measure(threads, seconds, park, doorbells);
            System.out.printf("maxIdleParkMicros=%5d: %.2f %% of one core per rdma-node thread%n", park, share);
        }
    }

    private static double measure(ThreadMXBean threads, int seconds, long parkMicros, boolean doorbells)
            throws Exception {
        InMemoryFabric fabric = new InMemoryFabric();
        Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
        CountDownLatch heard = new CountDownLatch(2);
        RdmaTransport[] nodes = new RdmaTransport[2];
        for (int id = 0; id < 2; id++) {
            nodes[id] = RdmaTransport.builder()
                    .self(id)
                    .listen(new InetSocketAddress("127.0.0.1", 0))
                    .peers(addresses::get)
                    .fabric(fabric.node(id))
                    .maxIdleParkMicros(parkMicros)
                    .doorbells(doorbells)
                    .build();
            nodes[id].start((from, message) -> heard.countDown());
            addresses.put(id, nodes[id].boundAddress());
        }
        try {
            nodes[0].send(1, new Message.Heartbeat(0, 0));
            nodes[1].send(0, new Message.Heartbeat(0, 0));
            heard.await(20, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!(nodes[0].ringOpen(1) && nodes[1].ringOpen(0)) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            Thread.sleep(500);
            long[] ids = rdmaNodeThreads();
            long before = cpu(threads, ids);
            long start = System.nanoTime();
            long sleepsBefore = nodes[0].sleeps() + nodes[1].sleeps();
            long doorbellsBefore = nodes[0].doorbellsReceived() + nodes[1].doorbellsReceived();
            Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
            long used = cpu(threads, ids) - before;
            long elapsed = System.nanoTime() - start;
            System.out.printf(
                    "  in the window: %d sleeps armed, %d doorbells received (both nodes)%n",
                    nodes[0].sleeps() + nodes[1].sleeps() - sleepsBefore,
                    nodes[0].doorbellsReceived() + nodes[1].doorbellsReceived() - doorbellsBefore);
            return 100.0 * used / elapsed / ids.length;
        } finally {
            nodes[0].close();
            nodes[1].close();
            fabric.close();
        }
    }

    private static long[] rdmaNodeThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("rdma-node-"))
                .mapToLong(Thread::getId)
                .toArray();
    }

    private static long cpu(ThreadMXBean threads, long[] ids) {
        long total = 0;
        for (long id : ids) {
            total += Math.max(0, threads.getThreadCpuTime(id));
        }
        return total;
    }
}
