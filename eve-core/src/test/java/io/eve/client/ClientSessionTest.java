package io.eve.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.EveException;
import io.eve.Reply;
import io.eve.Request;
import io.eve.protocol.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The client's rules, one by one, in explicit time: no threads, no transport. */
class ClientSessionTest {
    private static final long MS = 1_000_000L;
    private static final int SELF = 100;

    /** What the session asked for, in order. */
    private static final class Recorded implements ClientSession.Output<String> {
        final List<String> sent = new ArrayList<>();
        final List<Message> messages = new ArrayList<>();
        final List<String> replies = new ArrayList<>();
        final List<EveException> failures = new ArrayList<>();

        @Override
        public void send(int to, Message message) {
            String what = message instanceof Message.ClientRequest request
                    ? "request " + request.request().requestSeq()
                    : message instanceof Message.ReadRequest read
                            ? "read " + read.request().requestSeq()
                            : "?";
            sent.add(what + " to " + to);
            messages.add(message);
        }

        @Override
        public void onReply(String attachment, Reply reply) {
            replies.add(attachment + "=" + new String(reply.payload(), StandardCharsets.UTF_8)
                    + (reply.error() ? " (error)" : ""));
        }

        @Override
        public void onFailure(String attachment, EveException failure) {
            failures.add(failure);
            replies.add(attachment + " failed");
        }

        void clear() {
            sent.clear();
            messages.clear();
        }
    }

    private final Recorded out = new Recorded();

    private static ClientConfig primaryBackup() {
        return ClientConfig.of(1, 2).withTimeouts(Duration.ofMillis(100), Duration.ofMillis(1000));
    }

    private static ClientConfig bft() {
        return ClientConfig.of(1, 2, 3)
                .withTimeouts(Duration.ofMillis(100), Duration.ofMillis(1000))
                .withQuorumReplies(2)
                .withReadTimeout(Duration.ofMillis(50));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static Message reply(long seq, String payload) {
        return new Message.ClientReply(new Reply(SELF, seq, false, utf8(payload)));
    }

    @Test
    void shouldNumberRequestsAndCarryTheLowestUnansweredOne() {
        ClientSession<String> session = new ClientSession<>(SELF, primaryBackup(), 0);
        session.submit(utf8("a"), "a", 0, out);
        session.submit(utf8("b"), "b", 1, out);
        session.onMessage(1, reply(1, "A"), 2, out);
        session.submit(utf8("c"), "c", 3, out);

        List<Long> lowest = out.messages.stream()
                .map(m -> ((Message.ClientRequest) m).request().lowestUnanswered())
                .toList();
        assertThat(out.sent).containsExactly("request 1 to 1", "request 2 to 1", "request 3 to 1");
        assertThat(lowest).containsExactly(1L, 1L, 2L);
        assertThat(out.replies).containsExactly("a=A");
        assertThat(session.lowestUnanswered()).isEqualTo(2);
    }

    @Test
    void shouldResendTheSameRequestToTheNextReplicaAfterTheAttemptTimeout() {
        ClientSession<String> session = new ClientSession<>(SELF, primaryBackup(), 0);
        session.submit(utf8("a"), "a", 0, out);
        session.submit(utf8("b"), "b", 10 * MS, out);
        out.clear();

        session.onTick(99 * MS, out);
        assertThat(out.sent).isEmpty();
        session.onTick(105 * MS, out);
        assertThat(out.sent).containsExactly("request 1 to 2");
        session.onTick(110 * MS, out);
        assertThat(out.sent)
                .as("one sweep moves on once; the next sweep resends b to the target it moved to")
                .containsExactly("request 1 to 2", "request 2 to 1");
    }

    @Test
    void shouldSendTheFirstRequestAndEveryRetryToAllReplicasInTheQuorumProfiles() {
        ClientSession<String> session = new ClientSession<>(SELF, bft(), 0);
        session.submit(utf8("a"), "a", 0, out);
        session.submit(utf8("b"), "b", 0, out);
        assertThat(out.sent).containsExactly("request 1 to 1", "request 1 to 2", "request 1 to 3", "request 2 to 1");
        out.clear();

        session.onTick(100 * MS, out);
        assertThat(out.sent)
                .containsExactly(
                        "request 1 to 1",
                        "request 1 to 2",
                        "request 1 to 3",
                        "request 2 to 1",
                        "request 2 to 2",
                        "request 2 to 3");
    }

    @Test
    void shouldAcceptAQuorumReplyOnlyOnceEnoughDistinctReplicasSentTheSame() {
        ClientSession<String> session = new ClientSession<>(SELF, bft(), 0);
        session.submit(utf8("a"), "a", 0, out);

        session.onMessage(1, reply(1, "lie"), 1, out);
        session.onMessage(1, reply(1, "lie"), 2, out);
        assertThat(out.replies).as("one replica counts once").isEmpty();
        session.onMessage(7, reply(1, "lie"), 3, out);
        assertThat(out.replies)
                .as("a node that is no replica counts not at all")
                .isEmpty();
        session.onMessage(2, reply(1, "A"), 4, out);
        assertThat(out.replies).isEmpty();
        session.onMessage(3, reply(1, "A"), 5, out);
        assertThat(out.replies).containsExactly("a=A");
        assertThat(session.outstanding()).isZero();
    }

    @Test
    void shouldAcceptTheFirstReplyWhenOneSuffices() {
        ClientSession<String> session = new ClientSession<>(SELF, primaryBackup(), 0);
        session.submit(utf8("a"), "a", 0, out);
        session.onMessage(1, reply(1, "A"), 1, out);
        session.onMessage(2, reply(1, "late copy"), 2, out);
        assertThat(out.replies).containsExactly("a=A");
    }

    @Test
    void shouldHandAnApplicationErrorBackAsAReply() {
        ClientSession<String> session = new ClientSession<>(SELF, primaryBackup(), 0);
        session.submit(utf8("a"), "a", 0, out);
        session.onMessage(1, new Message.ClientReply(new Reply(SELF, 1, true, utf8("boom"))), 1, out);
        assertThat(out.replies).containsExactly("a=boom (error)");
        assertThat(out.failures).isEmpty();
    }

    @Test
    void shouldFollowOneRedirectPerAttemptAndAimNewRequestsAtThePrimaryItNames() {
        ClientSession<String> session = new ClientSession<>(SELF, primaryBackup(), 0);
        session.submit(utf8("a"), "a", 0, out);
        out.clear();

        session.onMessage(1, new Message.Redirect(SELF, 1, 2), 1, out);
        session.onMessage(2, new Message.Redirect(SELF, 1, 1), 2, out);
        assertThat(out.sent)
                .as("the second redirect waits for the attempt timeout")
                .containsExactly("request 1 to 2");
        assertThat(session.target()).isEqualTo(1);
        session.onMessage(1, new Message.Redirect(SELF, 1, 2), 3, out);
        assertThat(out.sent).hasSize(1);
        assertThat(session.target()).isEqualTo(2);

        session.submit(utf8("b"), "b", 4, out);
        assertThat(out.sent).containsExactly("request 1 to 2", "request 2 to 2");
    }

    @Test
    void shouldGiveTheReplicaARedirectNamesAWholeAttemptTimeout() {
        ClientSession<String> session = new ClientSession<>(SELF, primaryBackup(), 0);
        session.submit(utf8("a"), "a", 0, out);
        session.onMessage(1, new Message.Redirect(SELF, 1, 2), 80 * MS, out);
        out.clear();

        session.onTick(150 * MS, out);
        assertThat(out.sent)
                .as("the request went to replica 2 at 80 ms: its attempt ends at 180 ms, not 100")
                .isEmpty();
        assertThat(session.target()).isEqualTo(2);
        session.onTick(180 * MS, out);
        assertThat(out.sent).containsExactly("request 1 to 1");
    }

    @Test
    void shouldNotFollowARedirectFromAReplicaNamingItself() {
        ClientSession<String> session = new ClientSession<>(SELF, primaryBackup(), 0);
        session.submit(utf8("a"), "a", 0, out);
        out.clear();
        session.onMessage(1, new Message.Redirect(SELF, 1, 1), 1, out);
        assertThat(out.sent).isEmpty();
    }

    @Test
    void shouldOnlyMoveTheTargetOnARedirectInTheQuorumProfiles() {
        ClientSession<String> session = new ClientSession<>(SELF, bft(), 0);
        session.submit(utf8("a"), "a", 0, out);
        out.clear();
        session.onMessage(1, new Message.Redirect(SELF, 1, 3), 1, out);
        assertThat(out.sent).as("the replica forwarded it").isEmpty();
        session.submit(utf8("b"), "b", 2, out);
        assertThat(out.sent).containsExactly("request 2 to 3");
    }

    @Test
    void shouldFailARequestAtItsDeadlineSayingWhetherTheClusterWasHeardFrom() {
        ClientSession<String> session = new ClientSession<>(SELF, primaryBackup(), 0);
        session.submit(utf8("a"), "a", 0, out);
        session.onTick(999 * MS, out);
        assertThat(out.failures).isEmpty();
        session.onTick(1000 * MS, out);
        assertThat(out.failures).singleElement().isInstanceOf(ClusterUnavailableException.class);

        session.submit(utf8("b"), "b", 1001 * MS, out);
        session.onMessage(1, new Message.Redirect(SELF, 9, 2), 1002 * MS, out);
        session.onTick(2001 * MS, out);
        assertThat(out.failures).hasSize(2);
        assertThat(out.failures.get(1))
                .isInstanceOf(RequestTimeoutException.class)
                .isNotInstanceOf(ClusterUnavailableException.class);
        assertThat(session.outstanding()).isZero();
        assertThat(session.lowestUnanswered()).isEqualTo(3);
    }

    @Test
    void shouldKeepTimeoutsInOrderWhenCallersPassAnOlderTime() {
        ClientSession<String> session = new ClientSession<>(SELF, primaryBackup(), 0);
        session.submit(utf8("a"), "a", 50 * MS, out);
        session.submit(utf8("b"), "b", 40 * MS, out); // a thread that read the clock before the lock was taken
        session.onTick(1050 * MS, out);
        assertThat(out.replies).as("both opened at 50 ms").containsExactly("a failed", "b failed");
    }

    @Test
    void shouldCloseTheWindowWhileTheOldestRequestHoldsItBack() {
        ClientConfig config = primaryBackup().withMaxOutstanding(Request.SESSION_WINDOW);
        ClientSession<String> session = new ClientSession<>(SELF, config, 0);
        for (int i = 1; i <= Request.SESSION_WINDOW; i++) {
            session.submit(utf8("x"), "r" + i, 0, out);
        }
        for (int i = 2; i <= Request.SESSION_WINDOW; i++) {
            session.onMessage(1, reply(i, "ok"), 1, out);
        }
        assertThat(session.hasFreeSlot()).isTrue();
        assertThat(session.windowOpen()).isFalse();

        assertThat(session.abandon(1, out)).isTrue();
        assertThat(out.failures).singleElement().isInstanceOf(RequestTimeoutException.class);
        assertThat(session.windowOpen()).isTrue();
        assertThat(session.lowestUnanswered()).isEqualTo(Request.SESSION_WINDOW + 1);
        session.onMessage(1, reply(1, "too late"), 2, out);
        assertThat(out.replies).doesNotContain("r1=too late");
    }

    @Test
    void shouldAcceptAReadOnlyWhenEveryReplicaAnsweredAlike() {
        ClientSession<String> session = new ClientSession<>(SELF, bft(), 0);
        session.read(utf8("get"), "g", 0, out);
        assertThat(out.sent).containsExactly("read 1 to 1", "read 1 to 2", "read 1 to 3");
        Message answer = new Message.ReadReply(new Reply(SELF, 1, false, utf8("v")), false);
        session.onMessage(1, answer, 1, out);
        session.onMessage(2, answer, 2, out);
        assertThat(out.replies).isEmpty();
        session.onMessage(3, answer, 3, out);
        assertThat(out.replies).containsExactly("g=v");
        assertThat(session.readsAnswered()).isEqualTo(1);
        assertThat(session.outstanding()).isZero();
    }

    @Test
    void shouldReissueAReadAsAnOrderedRequestWhenAnswersDifferOrOneIsRefused() {
        ClientSession<String> session = new ClientSession<>(SELF, bft(), 0);
        session.read(utf8("get"), "g", 0, out);
        session.read(utf8("get2"), "h", 0, out);
        out.clear();
        session.onMessage(1, new Message.ReadReply(new Reply(SELF, 1, false, utf8("v")), false), 1, out);
        session.onMessage(2, new Message.ReadReply(new Reply(SELF, 1, false, utf8("w")), false), 2, out);
        session.onMessage(3, new Message.ReadReply(new Reply(SELF, 2, false, utf8("")), true), 3, out);
        assertThat(out.sent).contains("request 1 to 1", "request 2 to 1");
        assertThat(session.readsReissued()).isEqualTo(2);
        assertThat(session.ordered()).isEqualTo(2);

        session.onMessage(1, reply(1, "ordered"), 4, out);
        session.onMessage(2, reply(1, "ordered"), 5, out);
        assertThat(out.replies).containsExactly("g=ordered");
    }

    @Test
    void shouldReissueAReadAtItsTimeoutAndThenSendReadsOrderedForAWhile() {
        ClientSession<String> session = new ClientSession<>(SELF, bft(), 0);
        session.read(utf8("get"), "g", 0, out);
        session.onTick(49 * MS, out);
        assertThat(session.readsReissued()).isZero();
        session.onTick(50 * MS, out);
        assertThat(session.readsReissued()).isEqualTo(1);
        out.clear();

        session.read(utf8("get"), "h", 60 * MS, out);
        assertThat(out.sent).containsExactly("request 2 to 1");
        out.clear();
        session.read(utf8("get"), "i", 50 * MS + ClientSession.ORDINARY_READS_NANOS, out);
        assertThat(out.sent).containsExactly("read 2 to 1", "read 2 to 2", "read 2 to 3");
    }

    @Test
    void shouldFailEverythingInFlightWhenClosed() {
        ClientSession<String> session = new ClientSession<>(SELF, bft(), 0);
        session.submit(utf8("a"), "a", 0, out);
        session.read(utf8("get"), "g", 0, out);
        session.close(new EveException("closed"), out);
        assertThat(out.replies).containsExactlyInAnyOrder("a failed", "g failed");
        assertThat(session.outstanding()).isZero();
        assertThatThrownBy(() -> session.submit(utf8("b"), "b", 1, out))
                .isInstanceOf(EveException.class)
                .hasMessageContaining("closed");
    }
}
