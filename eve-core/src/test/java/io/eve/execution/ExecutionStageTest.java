package io.eve.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.mixer.GroupAllMixer;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ExecutionStageTest {
    private final ExecutorService pool = Executors.newFixedThreadPool(4);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private static Request request(long client, long seq, String text) {
        return new Request(client, seq, TestLedger.text(text));
    }

    private static String text(Reply reply) {
        return new String(reply.payload(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldRunNonConflictingRequestsInParallelAndConflictingOnesInOrder() {
        TestLedger ledger = new TestLedger();
        ledger.workMillis = 50;
        ExecutionStage stage = new ExecutionStage(ledger, KeyConflictMixer.unbounded(), pool);
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            requests.add(request(i, 1, "put:k" + i + ":a"));
        }
        requests.add(request(9, 1, "put:k0:b"));
        Executed executed = stage.execute(new Batch(1, 1000, 7, requests), false);
        assertThat(executed.parallelBatches()).isEqualTo(2);
        assertThat(ledger.mostAtOnce.get()).isEqualTo(4);
        assertThat(text(executed.replies().get(4)))
                .as("k0 was written by the earlier request")
                .isEqualTo("a");
    }

    @Test
    void shouldListTheChangedObjectsOfASequentialRunOnly() {
        TestLedger ledger = new TestLedger();
        ExecutionStage stage = new ExecutionStage(ledger, KeyConflictMixer.unbounded(), pool);
        Executed parallel = stage.execute(new Batch(1, 1000, 7, List.of(request(1, 1, "put:a:1"))), false);
        Executed sequential = stage.execute(new Batch(2, 1001, 8, List.of(request(1, 2, "put:a:2"))), true);

        assertThat(parallel.objectDigests()).isEmpty();
        assertThat(sequential.objectDigests().orElseThrow()).singleElement().satisfies(entry -> {
            assertThat(entry.id()).isEqualTo(ledger.state.idOf(ledger.entries));
            assertThat(entry.className()).isEqualTo(ReplicatedMap.class.getName());
        });
    }

    @Test
    void shouldTurnApplicationExceptionsIntoIdenticalErrorReplies() {
        ExecutionStage first = new ExecutionStage(new TestLedger(), KeyConflictMixer.unbounded(), pool);
        ExecutionStage second = new ExecutionStage(new TestLedger(), KeyConflictMixer.unbounded(), pool);
        Batch batch = new Batch(1, 1000, 7, List.of(request(1, 1, "boom"), request(2, 1, "put:x:1")));
        Executed a = first.execute(batch, false);
        Executed b = second.execute(batch, false);
        assertThat(a.replies().get(0).error()).isTrue();
        assertThat(a.replies().get(0).errorText()).contains("IllegalStateException: boom in batch 1");
        assertThat(a.token()).isEqualTo(b.token());
        assertThat(first.execute(new Batch(2, 1001, 8, List.of(request(2, 2, "put:x:2"))), false)
                        .replies()
                        .get(0))
                .extracting(ExecutionStageTest::text)
                .isEqualTo("1");
    }

    @Test
    void shouldGiveEveryRequestTheSameTimeAndRandomNumbersOnEveryReplica() {
        ExecutionStage first = new ExecutionStage(new TestLedger(), new GroupAllMixer(), pool);
        ExecutionStage second =
                new ExecutionStage(new TestLedger(), new GroupAllMixer(), Executors.newSingleThreadExecutor());
        List<Request> requests = List.of(request(1, 1, "rand:a"), request(2, 1, "rand:b"), request(3, 1, "rand:c"));
        Executed a = first.execute(new Batch(1, 123_456, 99, requests), false);
        Executed b = second.execute(new Batch(1, 123_456, 99, requests), true);
        assertThat(a.token()).isEqualTo(b.token());
        assertThat(text(a.replies().get(0)))
                .endsWith("@123456")
                .isNotEqualTo(text(a.replies().get(1)));
    }

    @Test
    void shouldAnswerARetriedRequestFromTheReplyCacheWithoutRunningItAgain() {
        TestLedger ledger = new TestLedger();
        ExecutionStage stage = new ExecutionStage(ledger, KeyConflictMixer.unbounded(), pool);
        stage.execute(new Batch(1, 1, 1, List.of(request(5, 1, "put:k:first"))), false);
        Executed retried = stage.execute(new Batch(2, 2, 2, List.of(request(5, 1, "put:k:second"))), false);
        assertThat(text(retried.replies().get(0))).as("the original reply").isEmpty();
        assertThat(ledger.entries.get("k")).isEqualTo("first");
    }

    @Test
    void shouldChainTokensAndRestoreThemOnRollback() {
        ExecutionStage stage = new ExecutionStage(new TestLedger(), KeyConflictMixer.unbounded(), pool);
        Token genesis = stage.lastToken();
        Executed one = stage.execute(new Batch(1, 1, 1, List.of(request(1, 1, "put:a:1"))), false);
        Executed two = stage.execute(new Batch(2, 2, 2, List.of(request(1, 2, "put:a:2"))), false);
        assertThat(one.token().previous()).isEqualTo(genesis.digest());
        assertThat(two.token().previous()).isEqualTo(one.token().digest());
        stage.rollbackTo(1);
        assertThat(stage.lastToken()).isEqualTo(one.token());
        Executed again = stage.execute(new Batch(2, 2, 2, List.of(request(1, 2, "put:a:2"))), true);
        assertThat(again.token()).isEqualTo(two.token());
    }

    @Test
    void shouldBringAReplicaUpToDateByTransfer() {
        ExecutionStage source = new ExecutionStage(new TestLedger(), KeyConflictMixer.unbounded(), pool);
        ExecutionStage lagging = new ExecutionStage(new TestLedger(), KeyConflictMixer.unbounded(), pool);
        for (long seq = 1; seq <= 5; seq++) {
            source.execute(new Batch(seq, seq, seq, List.of(request(1, seq, "put:k" + seq + ":v"))), false);
        }
        assertThat(lagging.apply(source.deltaSince(0), source.lastToken()).applied())
                .isTrue();
        Batch next = new Batch(6, 6, 6, List.of(request(1, 6, "put:k1:w"), request(1, 3, "put:k9:late")));
        Executed a = source.execute(next, false);
        Executed b = lagging.execute(next, false);
        assertThat(b.token()).isEqualTo(a.token());
        assertThat(b.replies().get(1).errorText())
                .as("client 1 acknowledged request 3 when it sent request 5")
                .contains("already answered");
    }

    @Test
    void shouldRunOneClientsConcurrentRequestsInOneParallelBatch() {
        int clients = 8;
        ExecutorService wide = Executors.newFixedThreadPool(clients);
        try {
            TestLedger ledger = new TestLedger();
            ledger.meeting = new java.util.concurrent.CountDownLatch(clients);
            ExecutionStage stage = new ExecutionStage(ledger, KeyConflictMixer.unbounded(), wide);
            List<Request> requests = new ArrayList<>();
            for (int seq = 1; seq <= clients; seq++) {
                requests.add(new Request(3, seq, 1, TestLedger.text("meet:k" + seq)));
            }
            // Each request waits until all of them run at once: a client key would run them one by one.
            Executed executed = stage.execute(new Batch(1, 1, 1, requests), false);
            assertThat(executed.replies())
                    .allSatisfy(reply -> assertThat(text(reply)).isEqualTo("met"));
            assertThat(executed.parallelBatches()).isEqualTo(1);
            assertThat(ledger.mostAtOnce.get()).isEqualTo(clients);
        } finally {
            wide.shutdownNow();
        }
    }

    @Test
    void shouldRunTwoCopiesOfOneRequestInOneBatchOnlyOnce() {
        TestLedger ledger = new TestLedger();
        ExecutionStage stage = new ExecutionStage(ledger, KeyConflictMixer.unbounded(), pool);
        Request retried = new Request(4, 2, 1, TestLedger.text("rand:k"));
        Executed executed = stage.execute(
                new Batch(1, 1, 1, List.of(retried, new Request(4, 1, 1, TestLedger.text("rand:j")), retried)), false);
        assertThat(ledger.executions.get()).isEqualTo(2);
        assertThat(executed.replies().get(2)).isEqualTo(executed.replies().get(0));
        assertThat(stage.committedReply(4, 2)).as("version 1 is not stable yet").isNull();
        stage.markStable(1);
        assertThat(stage.committedReply(4, 2)).isEqualTo(executed.replies().get(0));
        assertThat(stage.committedReply(4, 1)).isEqualTo(executed.replies().get(1));
    }

    /** Answers to read-only requests, as the stage gave them. */
    private static final class Answers implements ExecutionStage.ReadAnswer {
        final List<String> given = new ArrayList<>();

        @Override
        public void answer(Reply reply, boolean reissue) {
            given.add((reissue ? "reissue " : "") + (reply.error() ? reply.errorText() : text(reply)));
        }
    }

    @Test
    void shouldAnswerAReadAtOnceWhenNoVersionIsTentative() {
        ExecutionStage stage = new ExecutionStage(new TestLedger(), KeyConflictMixer.unbounded(), pool);
        stage.execute(new Batch(1, 1, 1, List.of(request(1, 1, "put:k:a"))), false);
        stage.markStable(1);
        Answers answers = new Answers();
        stage.read(request(2, 1, "get:k"), 10, answers);
        assertThat(answers.given).containsExactly("a");
        assertThat(stage.pendingReads()).isZero();
    }

    @Test
    void shouldHoldAReadOfATentativeVersionUntilItCommits() {
        ExecutionStage stage = new ExecutionStage(new TestLedger(), KeyConflictMixer.unbounded(), pool);
        stage.execute(new Batch(1, 1, 1, List.of(request(1, 1, "put:k:a"))), false);
        stage.execute(new Batch(2, 2, 2, List.of(request(1, 2, "put:k:b"))), false);
        Answers answers = new Answers();
        stage.read(request(2, 1, "get:k"), 10, answers);
        assertThat(answers.given).as("version 2 may still be rolled back").isEmpty();
        stage.markStable(1);
        assertThat(answers.given).isEmpty();
        stage.markStable(2);
        assertThat(answers.given).containsExactly("b");
        assertThat(stage.pendingReads()).isZero();
    }

    @Test
    void shouldTellAReadOfARolledBackVersionToReissue() {
        ExecutionStage stage = new ExecutionStage(new TestLedger(), KeyConflictMixer.unbounded(), pool);
        stage.execute(new Batch(1, 1, 1, List.of(request(1, 1, "put:k:a"))), false);
        Answers answers = new Answers();
        stage.read(request(2, 1, "get:k"), 10, answers);
        stage.rollbackTo(0);
        assertThat(answers.given)
                .singleElement()
                .asString()
                .startsWith("reissue read-only request 1 of client 2 not answered: the version it read was rolled"
                        + " back");
        stage.execute(new Batch(1, 1, 1, List.of(request(1, 1, "put:k:z"))), false);
        stage.markStable(1);
        assertThat(answers.given).hasSize(1);
    }

    @Test
    void shouldDiscardTheWritesOfAReadThatWritesAndTellItToReissue() {
        TestLedger ledger = new TestLedger();
        ExecutionStage stage = new ExecutionStage(ledger, KeyConflictMixer.unbounded(), pool);
        Executed one = stage.execute(new Batch(1, 1, 1, List.of(request(1, 1, "put:k:a"))), false);
        stage.markStable(1);
        Answers answers = new Answers();
        stage.read(request(2, 1, "put:k:sneaky"), 10, answers);
        assertThat(answers.given).singleElement().asString().contains("it wrote to the state");
        assertThat(ledger.entries.get("k")).isEqualTo("a");
        assertThat(stage.state().hasUnsealedWrites()).isFalse();
        Executed two = stage.execute(new Batch(2, 2, 2, List.of(request(1, 2, "get:k"))), false);
        assertThat(two.token().previous()).isEqualTo(one.token().digest());
        assertThat(text(two.replies().get(0))).isEqualTo("a");
    }

    @Test
    void shouldRefuseReadsBeyondThePendingLimit() {
        ExecutionStage stage = new ExecutionStage(new TestLedger(), KeyConflictMixer.unbounded(), pool);
        stage.execute(new Batch(1, 1, 1, List.of(request(1, 1, "put:k:a"))), false);
        Answers answers = new Answers();
        stage.read(request(2, 1, "get:k"), 2, answers);
        stage.read(request(2, 2, "get:k"), 2, answers);
        stage.read(request(2, 3, "get:k"), 2, answers);
        assertThat(answers.given).singleElement().asString().contains("2 read-only requests already wait for a commit");
        stage.markStable(1);
        assertThat(answers.given).hasSize(3).endsWith("a", "a");
    }

    @Test
    void shouldGiveAReadTheClockOfTheVersionItReads() {
        ExecutionStage stage = new ExecutionStage(new TestLedger(), KeyConflictMixer.unbounded(), pool);
        stage.execute(new Batch(1, 4242, 1, List.of(request(1, 1, "put:k:a"))), false);
        stage.markStable(1);
        Answers answers = new Answers();
        stage.read(request(2, 1, "clock:c"), 10, answers);
        assertThat(answers.given).containsExactly("4242@1/-1");
    }
}
