package io.eve.verify.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HeldRepliesTest {
    private final List<Reply> sent = new ArrayList<>();
    private final List<Long> wanted = new ArrayList<>();
    private final HeldReplies held = new HeldReplies(sent::add, wanted::add, 10);

    private static Reply reply(long client) {
        return new Reply(client, 1, false, new byte[0]);
    }

    @Test
    void shouldSendAtOnceWhenTheBatchIsAlreadyDurable() {
        held.release(10, reply(1));

        assertThat(sent).extracting(Reply::clientId).containsExactly(1L);
        assertThat(held.waiting()).isZero();
    }

    @Test
    void shouldAskTheStorageForEachLaterBatchARepliesWaitsForOnce() {
        held.release(10, reply(1)); // durable already: nothing to ask
        held.release(12, reply(2));
        held.release(11, reply(3)); // covered by the force of 12
        held.release(12, reply(4));
        held.release(13, reply(5));

        assertThat(wanted).containsExactly(12L, 13L);
    }

    @Test
    void shouldHoldUntilTheBatchIsDurableThenSendInBatchOrder() {
        held.release(13, reply(3));
        held.release(11, reply(1));
        held.release(12, reply(2));

        held.onDurable(12);

        assertThat(sent).extracting(Reply::clientId).containsExactly(1L, 2L);
        assertThat(held.waiting()).isEqualTo(1);

        held.onDurable(13);

        assertThat(sent).extracting(Reply::clientId).containsExactly(1L, 2L, 3L);
        assertThat(held.waiting()).isZero();
    }

    @Test
    void shouldIgnoreAReportBehindOneAlreadySeen() {
        held.onDurable(14);
        held.onDurable(12);
        held.release(13, reply(1));

        assertThat(sent).extracting(Reply::clientId).containsExactly(1L);
        assertThat(held.durable()).isEqualTo(14);
    }
}
