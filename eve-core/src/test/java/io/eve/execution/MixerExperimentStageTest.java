package io.eve.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.mixer.BatchKeys;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.Mixer;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.mixer.experiment.FalseNegativeMixer;
import io.eve.mixer.experiment.FalsePositiveMixer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The mixer experiments of Eve Figs. 6 and 7 reach execution: the stage orders requests by the keys the
 * mixer split the batch by, so an invented conflict serialises two requests and a hidden one lets them race.
 */
@Timeout(60)
class MixerExperimentStageTest {
    /** A batch seed for which the false-positive decorator at rate 0.3 chooses only the pair (0, 2) of three. */
    private static final long SEED_CHOOSING_0_AND_2 = 12;

    private final ExecutorService pool = Executors.newFixedThreadPool(4);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void shouldRunARequestAfterAnEarlierOneOnlyTheMixerThinksItConflictsWith() {
        TestLedger ledger = new TestLedger();
        Mixer mixer = new FalsePositiveMixer(KeyConflictMixer.unbounded(), 0.3);
        BatchKeys unrelated = new BatchKeys(1, SEED_CHOOSING_0_AND_2, Collections.nCopies(3, ConflictKeys.none()));
        List<ConflictKeys> invented = mixer.partition(unrelated).keys().requests();
        assertThat(invented.get(0).conflictsWith(invented.get(2))).isTrue();
        assertThat(invented.get(0).conflictsWith(invented.get(1))).isFalse();
        assertThat(invented.get(1).conflictsWith(invented.get(2))).isFalse();
        ExecutionStage stage = new ExecutionStage(ledger, mixer, pool);

        // Request 2 reads "a" without declaring it; request 0 writes it after waiting for request 2 to start.
        Executed executed = stage.execute(
                new Batch(
                        1,
                        1000,
                        SEED_CHOOSING_0_AND_2,
                        List.of(request(1, "early:a"), request(2, "put:b:x"), request(3, "late:c:a"))),
                false);

        assertThat(executed.parallelBatches()).isEqualTo(2);
        assertThat(text(executed.replies().get(2)))
                .as("the invented conflict made request 2 wait until request 0 had written")
                .isEqualTo("early");
        assertThat(text(executed.replies().get(0))).isEqualTo("alone");
    }

    @Test
    void shouldRunTogetherRequestsWhoseConflictsTheMixerWasToldAreNotThere() {
        TestLedger ledger = new TestLedger();
        ledger.meeting = new CountDownLatch(4);
        // All four write "k"; with every conflict hidden, a cap of two splits them into two parallel batches,
        // and nothing orders the second one after the first.
        Mixer mixer = new FalseNegativeMixer(KeyConflictMixer.capped(2), 1.0);
        ExecutionStage stage = new ExecutionStage(ledger, mixer, pool);
        List<Request> requests = new ArrayList<>();
        for (int client = 1; client <= 4; client++) {
            requests.add(request(client, "meet:k"));
        }

        // Each request waits until all four run at once, which an order between them would prevent.
        Executed executed = stage.execute(new Batch(1, 1000, 7, requests), false);

        assertThat(executed.parallelBatches()).isEqualTo(2);
        assertThat(executed.replies())
                .allSatisfy(reply -> assertThat(text(reply)).isEqualTo("met"));
    }

    private static Request request(long client, String text) {
        return new Request(client, 1, TestLedger.text(text));
    }

    private static String text(Reply reply) {
        return reply.error() ? reply.errorText() : new String(reply.payload(), StandardCharsets.UTF_8);
    }
}
