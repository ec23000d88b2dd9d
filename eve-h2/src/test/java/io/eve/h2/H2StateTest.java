package io.eve.h2;

import static io.eve.h2.Fixtures.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.Digest;
import io.eve.merkle.StateException;
import io.eve.merkle.VersionedState;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

class H2StateTest {

    @Test
    void shouldGiveEqualRootsForEqualContentInsertedInDifferentOrders() throws Exception {
        try (H2State a = Fixtures.newShop(64, 20);
                H2State b = Fixtures.newShop(64, 20)) {
            assertThat(a.rootAt(0)).isEqualTo(b.rootAt(0));
            run(a, 1, 0, "INSERT INTO line VALUES (1, 3, 1, 1.0)", "INSERT INTO line VALUES (2, 3, 1, 1.0)");
            run(b, 1, 0, "INSERT INTO line VALUES (2, 3, 1, 1.0)");
            run(b, 1, 1, "INSERT INTO line VALUES (1, 3, 1, 1.0)");
            assertThat(a.seal(1)).isEqualTo(b.seal(1));
        }
    }

    @Test
    void shouldChangeRootWhenARowChanges() throws Exception {
        try (H2State state = Fixtures.newShop(64, 5)) {
            run(state, 1, 0, "UPDATE customer SET name = 'x' WHERE id = 3");
            assertThat(state.seal(1)).isNotEqualTo(state.rootAt(0));
        }
    }

    @Test
    void shouldIgnoreARequestWhoseTransactionRollsBack() throws Exception {
        try (H2State state = Fixtures.newShop(64, 5)) {
            int undoBefore = state.keptUndoEntries();
            assertThatThrownBy(() -> state.execute(
                            (c, ctx) -> {
                                try (Statement s = c.createStatement()) {
                                    s.executeUpdate("UPDATE customer SET name = 'gone' WHERE id = 1");
                                    s.executeUpdate("DELETE FROM customer WHERE id = 2");
                                }
                                throw new IllegalArgumentException("application says no");
                            },
                            Fixtures.context(1, 0)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(state.keptUndoEntries()).isEqualTo(undoBefore);
            assertThat(state.seal(1)).isEqualTo(state.rootAt(0)).isEqualTo(state.scanRoot());
            assertThat(Fixtures.rows(state, "customer")).hasSize(5);
        }
    }

    @Test
    void shouldCountOnlyTheCommittedPartWhenAStatementFailsMidway() throws Exception {
        try (H2State reference = Fixtures.newShop(64, 5);
                H2State state = Fixtures.newShop(64, 5)) {
            state.execute(
                    (c, ctx) -> {
                        try (Statement s = c.createStatement()) {
                            s.executeUpdate("UPDATE customer SET name = 'kept' WHERE id = 1");
                            // Row 100 goes in, then id 3 collides: H2 undoes the statement, not the transaction.
                            assertThatThrownBy(() -> s.executeUpdate(
                                            "INSERT INTO customer (id, name) VALUES (100, 'a'), (3, 'dup')"))
                                    .isInstanceOf(SQLException.class);
                        }
                        return null;
                    },
                    Fixtures.context(1, 0));
            run(reference, 1, 0, "UPDATE customer SET name = 'kept' WHERE id = 1");
            assertThat(state.seal(1)).isEqualTo(reference.seal(1)).isEqualTo(state.scanRoot());
        }
    }

    @Test
    void shouldRollBackAcrossPipelinedVersions() throws Exception {
        try (H2State state = Fixtures.newShop(16, 10)) {
            List<String> customers0 = Fixtures.rows(state, "customer");
            List<String> lines0 = Fixtures.rows(state, "line");
            run(state, 1, 0, "UPDATE customer SET balance = balance + 1 WHERE id < 5");
            run(state, 1, 1, "DELETE FROM customer WHERE id = 7"); // cascades to orders and lines
            Digest one = state.seal(1);
            List<String> customers1 = Fixtures.rows(state, "customer");
            run(state, 2, 0, "MERGE INTO customer (id, name) KEY (id) VALUES (7, 'back'), (50, 'new')");
            run(state, 2, 1, "UPDATE line SET order_id = 9, n = 9 WHERE order_id = 3 AND n = 1");
            state.seal(2);
            run(state, 3, 0, "DELETE FROM line");
            state.rollbackTo(1);
            assertThat(state.sealedSeq()).isEqualTo(1);
            assertThat(Fixtures.rows(state, "customer")).isEqualTo(customers1);
            assertThat(state.scanRoot()).isEqualTo(one);
            run(state, 2, 0, "UPDATE customer SET name = 'other' WHERE id = 1");
            assertThat(state.seal(2)).isNotEqualTo(one);
            state.rollbackTo(0);
            assertThat(Fixtures.rows(state, "customer")).isEqualTo(customers0);
            assertThat(Fixtures.rows(state, "line")).isEqualTo(lines0);
            assertThat(state.scanRoot()).isEqualTo(state.rootAt(0));
        }
    }

    @Test
    void shouldForgetUndoLogsOnceStable() throws Exception {
        try (H2State state = Fixtures.newShop(16, 4)) {
            run(state, 1, 0, "UPDATE customer SET name = 'a'");
            state.seal(1);
            run(state, 2, 0, "UPDATE customer SET name = 'b'");
            state.seal(2);
            state.markStable(2);
            assertThat(state.keptUndoEntries()).isZero();
            assertThatThrownBy(() -> state.rollbackTo(1)).isInstanceOf(StateException.class);
        }
    }

    @Test
    void shouldFailRollbackWhenTheDatabaseChangedBehindItsBack() throws Exception {
        try (H2State state = Fixtures.newShop(16, 4)) {
            run(state, 1, 0, "UPDATE customer SET name = 'a' WHERE id = 1");
            state.seal(1);
            Fixtures.bypass(state, "UPDATE customer SET name = 'z' WHERE id = 1");
            assertThatThrownBy(() -> state.rollbackTo(0))
                    .isInstanceOf(StateException.class)
                    .hasMessageContaining("outside eve-h2");
        }
    }

    @Test
    void shouldRefuseWritesOutsideAnEveTransaction() throws Exception {
        String url = Fixtures.newUrl();
        try (H2State state = H2State.builder().url(url).schema(Fixtures.SCHEMA).build();
                var raw = DriverManager.getConnection(url, "sa", "");
                PreparedStatement ps = raw.prepareStatement("INSERT INTO customer (id, name) VALUES (1, 'x')")) {
            assertThatThrownBy(ps::executeUpdate)
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("PUBLIC.CUSTOMER");
            assertThat(state.seal(0)).isEqualTo(state.scanRoot());
        }
    }

    @Test
    void shouldSealInOrderOnly() throws Exception {
        try (H2State state = Fixtures.newShop(16, 1)) {
            assertThatThrownBy(() -> state.seal(5)).isInstanceOf(StateException.class);
            assertThat(state.sealedSeq()).isZero();
            assertThat(state.stableSeq()).isEqualTo(VersionedState.NOTHING);
        }
    }

    @Test
    void shouldPassTheDebugCheckWhenEveryWriteWentThroughTheTriggers() throws Exception {
        try (H2State state = H2State.builder()
                .url(Fixtures.newUrl())
                .schema(Fixtures.SCHEMA)
                .bucketsPerTable(4)
                .debug(true)
                .build()) {
            run(state, 0, 0, "INSERT INTO customer (id, name) VALUES (1, 'a'), (2, 'b')");
            state.seal(0);
            run(state, 1, 0, "DELETE FROM customer WHERE id = 1");
            assertThat(state.seal(1)).isEqualTo(state.scanRoot());
        }
    }

    @Test
    void shouldHashWithOneBucket() throws Exception {
        try (H2State a = Fixtures.newShop(1, 3);
                H2State b = Fixtures.newShop(1, 3)) {
            assertThat(a.rootAt(0)).isEqualTo(b.rootAt(0)).isEqualTo(a.scanRoot());
        }
    }

    @Test
    void shouldFailTheDebugCheckNamingTheTableAWriteBypassed() throws Exception {
        try (H2State state = H2State.builder()
                .url(Fixtures.newUrl())
                .schema(Fixtures.SCHEMA)
                .debug(true)
                .build()) {
            run(state, 0, 0, "INSERT INTO customer (id, name) VALUES (1, 'a')");
            state.seal(0);
            Fixtures.bypass(state, "UPDATE customer SET name = 'z' WHERE id = 1");
            assertThatThrownBy(() -> state.seal(1))
                    .isInstanceOf(StateException.class)
                    .hasMessageContaining("PUBLIC.CUSTOMER");
        }
    }
}
