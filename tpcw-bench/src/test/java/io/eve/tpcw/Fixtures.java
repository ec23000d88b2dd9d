package io.eve.tpcw;

import io.eve.ExecutionContext;
import io.eve.h2.H2State;
import io.eve.tpcw.schema.Scale;
import java.util.concurrent.atomic.AtomicInteger;

/** Small databases and contexts for the TPC-W tests. */
final class Fixtures {
    static final Scale SMALL = new Scale(200, 1, 0.05);
    static final long SEED = 7;
    static final long CLIENT = 1000;
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private Fixtures() {}

    static H2State newState() throws Exception {
        return TpcwDatabase.newState(url(), SMALL, SEED);
    }

    static String url() {
        return "jdbc:h2:mem:tpcw-test-" + DATABASES.incrementAndGet();
    }

    static ExecutionContext context(long seq) {
        return new ExecutionContext(seq, 0, 1_800_000_000_000L + seq, seq * 31, CLIENT, seq);
    }
}
