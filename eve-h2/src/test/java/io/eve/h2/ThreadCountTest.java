package io.eve.h2;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One parallel batch of non-conflicting requests gives one root whatever the number of executor threads. */
class ThreadCountTest {

    @Test
    void shouldGiveEqualRootsWithOneTwoAndEightThreads() throws Exception {
        Digest one = runBatch(1);
        assertThat(runBatch(2)).isEqualTo(one);
        assertThat(runBatch(8)).isEqualTo(one);
    }

    private static Digest runBatch(int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (H2State state = Fixtures.newShop(64, 40)) {
            List<Future<byte[]>> replies = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                int customer = i;
                replies.add(pool.submit(() -> state.execute(
                        (c, ctx) -> {
                            try (PreparedStatement ps = c.prepareStatement(
                                    "UPDATE customer SET balance = balance + ?, since = ? WHERE id = ?")) {
                                ps.setInt(1, ctx.random().nextInt(100));
                                ps.setObject(2, Sql.today(ctx));
                                ps.setInt(3, customer);
                                ps.executeUpdate();
                            }
                            try (PreparedStatement ps = c.prepareStatement(
                                    "INSERT INTO orders VALUES (?, ?, RAND(), CURRENT_TIMESTAMP, 'x', NULL)")) {
                                ps.setInt(1, 1000 + customer);
                                ps.setInt(2, customer);
                                ps.executeUpdate();
                            }
                            if (customer % 3 == 0) {
                                try (PreparedStatement ps = c.prepareStatement("DELETE FROM line WHERE order_id = ?")) {
                                    ps.setInt(1, customer);
                                    ps.executeUpdate();
                                }
                            }
                            return null;
                        },
                        Fixtures.context(1, customer))));
            }
            for (Future<byte[]> reply : replies) {
                reply.get(30, TimeUnit.SECONDS);
            }
            Digest root = state.seal(1);
            assertThat(root).isEqualTo(state.scanRoot());
            return root;
        } finally {
            pool.shutdown();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }
}
