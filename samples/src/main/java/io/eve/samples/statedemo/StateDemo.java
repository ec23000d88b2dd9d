package io.eve.samples.statedemo;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.VersionedState;
import java.io.PrintStream;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The README's main job until the replicated cluster exists: three replicas of a key-value store execute
 * batches in parallel (the requests of a batch write distinct objects, as a mixer would arrange) and
 * compare Merkle roots after each; a divergence injected on one replica is
 * detected, rolled back and re-executed sequentially; a replica that fell behind catches up by an
 * incremental state transfer checked against the agreed root. Prints its progress and a result line.
 */
public final class StateDemo {
    private static final int OBJECTS = 20_000;
    private static final int VALUE_SIZE = 1024;
    private static final int BATCHES = 40;
    private static final int BATCH_SIZE = 200;
    private static final int DIVERGENT_BATCH = 17;
    private static final int LAG_FROM = 38;

    private StateDemo() {}

    public static void main(String[] args) throws Exception {
        boolean ok = run(System.out);
        System.exit(ok ? 0 : 1);
    }

    /** Runs the demo, printing to {@code out}; returns whether every check held. */
    static boolean run(PrintStream out) throws Exception {
        out.printf(
                "Eve for the JVM: state demo (%,d objects of %d B, %d batches of %d writes, 4 threads)%n",
                OBJECTS, VALUE_SIZE, BATCHES, BATCH_SIZE);
        Replica a = new Replica("A", OBJECTS, VALUE_SIZE);
        Replica b = new Replica("B", OBJECTS, VALUE_SIZE);
        Replica c = new Replica("C", OBJECTS, VALUE_SIZE);
        out.printf("initial root %s on all three: %b%n", a.state.rootAt(0), equal(a, b, c, 0));
        SplittableRandom random = new SplittableRandom(2012);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        int rollbacks = 0;
        try {
            for (long seq = 1; seq <= BATCHES; seq++) {
                long[] keys =
                        random.longs(0, OBJECTS).distinct().limit(BATCH_SIZE).toArray();
                boolean corrupt = seq == DIVERGENT_BATCH;
                Digest rootA = a.execute(seq, keys, pool, false);
                Digest rootB = b.execute(seq, keys, pool, corrupt);
                if (seq < LAG_FROM) {
                    c.execute(seq, keys, pool, false);
                }
                if (!rootA.equals(rootB)) {
                    rollbacks++;
                    out.printf(
                            "batch %2d: roots differ (A %s, B %s): roll back to %d, re-execute sequentially%n",
                            seq, rootA, rootB, seq - 1);
                    a.state.rollbackTo(seq - 1);
                    b.state.rollbackTo(seq - 1);
                    ExecutorService sequential = Executors.newSingleThreadExecutor();
                    try {
                        rootA = a.execute(seq, keys, sequential, false);
                        rootB = b.execute(seq, keys, sequential, false);
                    } finally {
                        sequential.shutdown();
                    }
                }
                if (!rootA.equals(rootB)) {
                    out.printf("batch %2d: still divergent after sequential re-execution%n", seq);
                    return false;
                }
                a.state.markStable(seq);
                b.state.markStable(seq);
                if (seq % 5 == 0 || seq == DIVERGENT_BATCH) {
                    out.printf("batch %2d: committed, root %s%n", seq, rootA);
                }
            }
        } finally {
            pool.shutdown();
        }
        boolean transferred = catchUp(out, a, c);
        StateDelta full = a.state.deltaSince(VersionedState.NOTHING);
        out.printf("full state would be %,d bytes%n", full.size());
        boolean agreed = a.state.rootAt(BATCHES).equals(b.state.rootAt(BATCHES))
                && a.state.rootAt(BATCHES).equals(c.state.rootAt(BATCHES));
        out.printf(
                "RESULT: %d batches committed, %d rollback(s), final root %s, replicas agree: %b%n",
                BATCHES, rollbacks, a.state.rootAt(BATCHES), agreed && transferred);
        return agreed && transferred && rollbacks == 1;
    }

    private static boolean catchUp(PrintStream out, Replica source, Replica lagging) {
        long from = lagging.state.sealedSeq();
        StateDelta delta = source.state.deltaSince(from);
        ApplyResult result = lagging.state.apply(delta, BATCHES, source.state.rootAt(BATCHES));
        out.printf(
                "replica %s was at batch %d; incremental transfer of %,d bytes to batch %d: %s%n",
                lagging.name, from, delta.size(), delta.targetSeq(), result.applied() ? "applied" : result.reason());
        return result.applied();
    }

    private static boolean equal(Replica a, Replica b, Replica c, long seq) {
        return a.state.rootAt(seq).equals(b.state.rootAt(seq))
                && a.state.rootAt(seq).equals(c.state.rootAt(seq));
    }
}
