package io.eve.tpcw.bench;

import io.eve.h2.H2State;
import io.eve.merkle.Digest;
import io.eve.tpcw.TpcwDatabase;
import io.eve.tpcw.schema.Scale;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The replicas' side of an Eve target: one eve-h2 database per replica, populated identically, and one
 * meter registry each; the pipeline counters of the first replica, a connection for the invariant checks,
 * and the end-of-point comparison of every replica's sealed root (also recomputed from a full scan).
 * Thread-safe once built.
 */
final class ReplicatedDatabases implements AutoCloseable {
    private final List<H2State> states = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();
    private final List<SimpleMeterRegistry> registries = new ArrayList<>();

    /** Adds replica {@code node}'s database ({@code name}-replica{@code node}) and returns its state. */
    H2State add(String name, int node, Scale scale, long seed) throws Exception {
        String url = "jdbc:h2:mem:" + name + "-replica" + node;
        H2State state = TpcwDatabase.newState(url, scale, seed);
        states.add(state);
        urls.add(url);
        registries.add(new SimpleMeterRegistry());
        return state;
    }

    /** The meter registry of the {@code index}-th replica added. */
    SimpleMeterRegistry registry(int index) {
        return registries.get(index);
    }

    /** Batches, their requests and parallel batches as the first replica counted them. */
    Target.PipelineCounters counters(long rollbacks) {
        SimpleMeterRegistry first = registries.get(0);
        DistributionSummary requests = first.find("eve.batch.requests").summary();
        DistributionSummary parallel = first.find("eve.batch.parallel").summary();
        return new Target.PipelineCounters(
                requests == null ? 0 : requests.count(),
                requests == null ? 0 : requests.totalAmount(),
                parallel == null ? 0 : parallel.totalAmount(),
                rollbacks);
    }

    /** A connection to the first replica's database. */
    Connection inspect() throws SQLException {
        return DriverManager.getConnection(urls.get(0), "sa", "");
    }

    /**
     * Waits until every replica has sealed the same last batch and nothing moves any more, then compares
     * their sealed roots and recomputes each from a full scan of the tables.
     */
    Target.RootCheck checkRoots() throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        long last = -2;
        while (System.nanoTime() - deadline < 0) {
            long seq = settledSeq();
            if (seq >= 0 && seq == last) {
                break;
            }
            last = seq;
            Thread.sleep(200);
        }
        long seq = settledSeq();
        if (seq < 0) {
            List<Long> sealed = new ArrayList<>();
            states.forEach(state -> sealed.add(state.sealedSeq()));
            return new Target.RootCheck(false, states.get(0).sealedSeq(), "replicas did not settle: sealed " + sealed);
        }
        List<Digest> roots = new ArrayList<>();
        boolean scansMatch = true;
        for (H2State state : states) {
            Digest root = state.rootAt(seq);
            roots.add(root);
            scansMatch &= state.scanRoot().equals(root);
        }
        boolean agreed = roots.stream().distinct().count() == 1 && scansMatch;
        return new Target.RootCheck(
                agreed, seq, "batch " + seq + ": roots " + roots + ", full scans " + (scansMatch ? "match" : "DIFFER"));
    }

    /** The batch every replica has sealed, or -1 while they differ. */
    private long settledSeq() {
        long seq = states.get(0).sealedSeq();
        for (H2State state : states) {
            if (state.sealedSeq() != seq) {
                return -1;
            }
        }
        return seq;
    }

    @Override
    public void close() {
        states.forEach(H2State::close);
    }
}
