package io.eve.tpcw;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.h2.H2State;
import io.eve.merkle.Digest;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.tpcw.driver.EmulatedBrowser;
import io.eve.tpcw.driver.Mix;
import io.eve.tpcw.interaction.RequestCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class DeterminismTest {
    private static final int BROWSERS = 12;
    private static final int BATCHES = 12;

    @Test
    @Timeout(120)
    void shouldReachTheSameRootsWithOneAndFourThreads() throws Exception {
        List<Batch> batches = batches();
        List<Digest> sequential = execute(batches, 1);
        List<Digest> parallel = execute(batches, 4);
        assertThat(parallel).isEqualTo(sequential);
        assertThat(sequential.get(BATCHES)).isNotEqualTo(sequential.get(0));
    }

    /** Ordering-mix batches: every browser sends one request per batch, so batches mix all 14 kinds. */
    private static List<Batch> batches() {
        List<EmulatedBrowser> browsers = new ArrayList<>();
        for (int b = 0; b < BROWSERS; b++) {
            browsers.add(new EmulatedBrowser(1000 + b, Fixtures.SMALL, Mix.ORDERING, 11));
        }
        List<Batch> batches = new ArrayList<>();
        for (int seq = 1; seq <= BATCHES; seq++) {
            List<Request> requests = new ArrayList<>();
            for (EmulatedBrowser browser : browsers) {
                requests.add(new Request(browser.clientId(), seq, RequestCodec.encode(browser.next())));
            }
            batches.add(new Batch(seq, 1_800_000_000_000L + seq * 1000L, seq * 7919L, requests));
        }
        return batches;
    }

    /** The state root after version 0 and each batch, and checks every reply was a success. */
    private static List<Digest> execute(List<Batch> batches, int threads) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try (H2State state = Fixtures.newState()) {
            ExecutionStage stage = new ExecutionStage(
                    new TpcwApplication(state, Fixtures.SMALL.items(), 10), KeyConflictMixer.unbounded(), executor);
            List<Digest> roots = new ArrayList<>();
            roots.add(state.rootAt(0));
            int parallelBatches = 0;
            for (Batch batch : batches) {
                Executed executed = stage.execute(batch, false);
                assertThat(executed.replies())
                        .allSatisfy(reply ->
                                assertThat(reply.error()).as(reply.errorText()).isFalse());
                parallelBatches += executed.parallelBatches();
                roots.add(state.rootAt(batch.seq()));
            }
            assertThat(parallelBatches).isLessThan(BATCHES * BROWSERS);
            assertThat(state.scanRoot()).isEqualTo(roots.get(roots.size() - 1));
            return roots;
        } finally {
            executor.shutdownNow();
        }
    }
}
