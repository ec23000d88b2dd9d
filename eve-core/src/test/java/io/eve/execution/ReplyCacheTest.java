package io.eve.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReplyCacheTest {
    private static final long CLIENT = 7;

    private final ObjectGraphState state =
            ObjectGraphState.builder().gcInterval(0).build();
    private final ReplyCache cache = new ReplyCache(state);
    private final ExecutorService pool = Executors.newFixedThreadPool(4);
    private final ExecutorService single = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        pool.shutdownNow();
        single.shutdownNow();
    }

    private static Request request(long seq, long lowestUnanswered) {
        return new Request(CLIENT, seq, lowestUnanswered, TestLedger.text("put:k" + seq + ":v"));
    }

    private static Reply reply(long seq) {
        return new Reply(CLIENT, seq, false, TestLedger.text("reply " + seq));
    }

    /** What the stage does at seal: every request raises the mark, then the replies of those that ran. */
    private void seal(Request... ran) {
        Reply[] replies = new Reply[ran.length];
        boolean[] executed = new boolean[ran.length];
        for (int i = 0; i < ran.length; i++) {
            replies[i] = reply(ran[i].requestSeq());
            executed[i] = true;
        }
        cache.recordBatch(List.of(ran), replies, executed);
    }

    @Test
    void shouldRecordABatchAsItsAcknowledgementsAndRecordsOneByOne() {
        ObjectGraphState oneByOneState =
                ObjectGraphState.builder().gcInterval(0).build();
        ReplyCache oneByOne = new ReplyCache(oneByOneState);
        List<Request> requests = new ArrayList<>();
        List<Reply> replies = new ArrayList<>();
        long[] clients = {CLIENT, 8, 9};
        for (int round = 0; round < 6; round++) {
            for (long client : clients) {
                // Two requests per client and round, the second acknowledging the first, and one not executed.
                long seq = 2L * round + 1;
                requests.add(new Request(client, seq, seq, TestLedger.text("a")));
                requests.add(new Request(client, seq + 1, client == 9 ? 1 : seq + 1, TestLedger.text("b")));
                replies.add(new Reply(client, seq, false, TestLedger.text("r" + seq)));
                replies.add(new Reply(client, seq + 1, client == 8, TestLedger.text("r" + (seq + 1))));
            }
            boolean[] executed = new boolean[replies.size()];
            for (int i = 0; i < executed.length; i++) {
                executed[i] = i % 5 != 3;
            }
            cache.recordBatch(requests, replies.toArray(Reply[]::new), executed);
            requests.forEach(oneByOne::acknowledge);
            for (int i = 0; i < executed.length; i++) {
                if (executed[i]) {
                    oneByOne.record(replies.get(i));
                }
            }
            for (long client : clients) {
                assertThat(cache.mark(client)).isEqualTo(oneByOne.mark(client));
                for (long seq = 1; seq <= 2L * round + 2; seq++) {
                    assertThat(cache.cached(client, seq)).isEqualTo(oneByOne.cached(client, seq));
                }
            }
            // The batch writes each client's mark once, at its final value: the same state, to the root.
            assertThat(state.seal(round)).as("root after round %d", round).isEqualTo(oneByOneState.seal(round));
            requests.clear();
            replies.clear();
        }
        assertThat(cache.mark(9))
                .as("the first request of the last round, 11, acknowledged the rest")
                .isEqualTo(11);
        assertThat(cache.size(8)).isEqualTo(oneByOne.size(8));
    }

    @Test
    void shouldRunNewRequestsAnywhereInTheWindowInAnyOrder() {
        assertThat(cache.lookup(request(5, 1), 0)).isNull();
        seal(request(5, 1));
        assertThat(cache.lookup(request(2, 1), 0)).as("older, but never ran").isNull();
        assertThat(cache.lookup(request(Request.SESSION_WINDOW, 1), 0)).isNull();
    }

    @Test
    void shouldAnswerADuplicateWithinTheWindowFromTheCache() {
        seal(request(3, 1), request(1, 1), request(2, 1));
        assertThat(cache.lookup(request(1, 1), 0)).isEqualTo(reply(1));
        assertThat(cache.lookup(request(3, 2), 0)).isEqualTo(reply(3));
        assertThat(cache.size(CLIENT)).isEqualTo(3);
    }

    @Test
    void shouldForgetRepliesBelowTheAcknowledgedMark() {
        seal(request(1, 1), request(2, 1), request(3, 1));
        seal(request(4, 3));
        assertThat(cache.mark(CLIENT)).isEqualTo(3);
        assertThat(cache.size(CLIENT)).as("replies 3 and 4").isEqualTo(2);
        assertThat(cache.cached(CLIENT, 2)).isNull();
        assertThat(cache.cached(CLIENT, 3)).isEqualTo(reply(3));
    }

    @Test
    void shouldNeverLowerTheMark() {
        seal(request(4, 4));
        seal(request(5, 2));
        assertThat(cache.mark(CLIENT)).isEqualTo(4);
    }

    @Test
    void shouldRefuseAnAlreadyForgottenRequestWithAnErrorReply() {
        seal(request(1, 1), request(2, 2));
        Reply refused = cache.lookup(request(1, 1), 0);
        assertThat(refused.error()).isTrue();
        assertThat(refused.requestSeq()).isEqualTo(1);
        assertThat(refused.errorText())
                .isEqualTo("request 1 of client 7 not executed: it was already answered: the client acknowledged"
                        + " every request below 2");
    }

    @Test
    void shouldRefuseARequestBeyondTheWindowWithAnErrorReply() {
        seal(request(10, 10));
        long beyond = 10 + Request.SESSION_WINDOW;
        assertThat(cache.lookup(request(beyond - 1, 10), 0)).isNull();
        Reply refused = cache.lookup(request(beyond, 10), 0);
        assertThat(refused.error()).isTrue();
        assertThat(refused.errorText()).contains("beyond the session window of 1024 requests from 10");
    }

    @Test
    void shouldTakeTheFloorOfABatchNotYetRecordedAsTheMark() {
        seal(request(1, 1));
        assertThat(cache.lookup(request(1, 1), 0)).isEqualTo(reply(1));
        assertThat(cache.lookup(request(1, 1), 2).errorText()).contains("acknowledged every request below 2");
    }

    @Test
    void shouldNotKeepTheReplyOfARequestAcknowledgedInItsOwnBatch() {
        seal(request(1, 1), request(2, 2));
        assertThat(cache.cached(CLIENT, 1)).isNull();
        assertThat(cache.size(CLIENT)).isEqualTo(1);
    }

    @Test
    void shouldKeepAtMostTheWindowOfRepliesPerClient() {
        for (long seq = 1; seq <= 3L * Request.SESSION_WINDOW; seq++) {
            long lowest = Math.max(1, seq - Request.SESSION_WINDOW + 1);
            Request next = request(seq, lowest);
            assertThat(cache.lookup(next, 0)).isNull();
            seal(next);
        }
        assertThat(cache.size(CLIENT)).isEqualTo(Request.SESSION_WINDOW);
    }

    @Test
    void shouldGiveTheSameRootsOnTwoReplicasWhateverTheThreadsDid() {
        ExecutionStage parallel = new ExecutionStage(new TestLedger(), KeyConflictMixer.unbounded(), pool);
        ExecutionStage sequential = new ExecutionStage(new TestLedger(), KeyConflictMixer.unbounded(), single);
        long seq = 1;
        for (long batch = 1; batch <= 20; batch++) {
            List<Request> requests = new ArrayList<>();
            for (int i = 0; i < 6; i++, seq++) {
                // A retry of a request two batches back, and the client acknowledging all but the last batch.
                long lowest = Math.max(1, seq - 8);
                requests.add(new Request(CLIENT, seq, lowest, TestLedger.text("put:k" + (seq % 5) + ":" + seq)));
                requests.add(new Request(CLIENT + 1, seq, 1, TestLedger.text("rand:r" + seq)));
            }
            if (seq > 13) {
                requests.add(new Request(CLIENT, seq - 12, seq - 12, TestLedger.text("put:k0:again")));
            }
            Batch next = new Batch(batch, batch, batch, requests);
            Executed a = parallel.execute(next, false);
            Executed b = sequential.execute(next, batch % 2 == 0);
            assertThat(a.token()).as("batch " + batch).isEqualTo(b.token());
        }
    }
}
