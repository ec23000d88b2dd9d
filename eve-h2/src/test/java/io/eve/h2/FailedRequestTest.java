package io.eve.h2;

import static io.eve.h2.Fixtures.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.ExecutionContext;
import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A request that throws after its INSERTs and UPDATEs leaves no row behind, wherever it threw. */
@Timeout(60)
class FailedRequestTest {
    private static final String INSERT = "INSERT INTO customer VALUES (50, 'new', 1.00, TRUE, DATE '2020-01-01')";
    private static final String UPDATE = "UPDATE customer SET name = 'gone' WHERE id = 1";

    private final ExecutorService pool = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void shouldLeaveNoRowsWhenTheRequestThrowsAfterItsSqlWorkReturned() throws Exception {
        try (H2State state = Fixtures.newShop(16, 5)) {
            List<String> before = Fixtures.rows(state, "customer");
            state.beginRequest();
            run(state, 1, 0, INSERT, UPDATE);
            state.abortRequest();
            assertThat(Fixtures.rows(state, "customer")).isEqualTo(before);
            assertThat(state.seal(1)).isEqualTo(state.rootAt(0)).isEqualTo(state.scanRoot());
        }
    }

    @Test
    void shouldCommitTheRequestsWorkAsOneTransactionWhenTheRequestEnds() throws Exception {
        try (H2State state = Fixtures.newShop(16, 5);
                H2State reference = Fixtures.newShop(16, 5)) {
            state.beginRequest();
            run(state, 1, 0, INSERT);
            run(state, 1, 0, UPDATE);
            state.endRequest();
            run(reference, 1, 0, INSERT, UPDATE);
            assertThat(Fixtures.rows(state, "customer")).hasSize(6);
            assertThat(state.seal(1)).isEqualTo(reference.seal(1)).isEqualTo(state.scanRoot());
        }
    }

    /** "insert:id" adds a customer; "fail:id" adds one and renames customer 1, then throws; "refuse:id" throws. */
    static final class Customers extends H2Application {
        Customers(H2State state) {
            super(state);
        }

        @Override
        public ConflictKeys conflictKeys(byte[] payload) {
            return ConflictKeys.writing("customers");
        }

        @Override
        protected byte[] execute(Connection connection, byte[] payload, ExecutionContext context) throws Exception {
            String[] parts = new String(payload, StandardCharsets.UTF_8).split(":");
            if (!parts[0].equals("refuse")) {
                try (Statement s = connection.createStatement()) {
                    s.executeUpdate(
                            "INSERT INTO customer VALUES (" + parts[1] + ", 'n', 1.00, TRUE, DATE '2020-01-01')");
                    if (parts[0].equals("fail")) {
                        s.executeUpdate(UPDATE);
                    }
                }
            }
            if (!parts[0].equals("insert")) {
                throw new IllegalArgumentException("customer " + parts[1] + " refused");
            }
            return new byte[0];
        }
    }

    private static Batch batch(long seq, String failVerb) {
        List<Request> requests = List.of(
                new Request(1, seq, text("insert:" + (seq * 10))),
                new Request(2, seq, text(failVerb + ":" + (seq * 10 + 1))),
                new Request(3, seq, text("insert:" + (seq * 10 + 2))));
        return new Batch(seq, 1000 + seq, seq, requests);
    }

    private static byte[] text(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldLeaveNoRowsOfAFailedRequestOfAnH2Application() throws Exception {
        try (H2State state = Fixtures.newShop(16, 5);
                H2State reference = Fixtures.newShop(16, 5)) {
            ExecutionStage stage = new ExecutionStage(new Customers(state), KeyConflictMixer.unbounded(), pool);
            ExecutionStage clean = new ExecutionStage(new Customers(reference), KeyConflictMixer.unbounded(), pool);
            for (long seq = 1; seq <= 3; seq++) {
                Executed executed = stage.execute(batch(seq, "fail"), false);
                Executed expected = clean.execute(batch(seq, "refuse"), false);
                assertThat(executed.replies()).filteredOn(Reply::error).hasSize(1);
                assertThat(executed.token()).isEqualTo(expected.token());
            }
            assertThat(Fixtures.rows(state, "customer"))
                    .hasSize(11)
                    .noneMatch(row -> row.contains("gone"))
                    .isEqualTo(Fixtures.rows(reference, "customer"));
        }
    }
}
