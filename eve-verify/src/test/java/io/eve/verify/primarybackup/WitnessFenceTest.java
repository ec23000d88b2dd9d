package io.eve.verify.primarybackup;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import io.eve.protocol.Message.FenceAnswer;
import io.eve.protocol.Message.FenceRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WitnessFenceTest {
    private final List<Message> sent = new ArrayList<>();
    private final WitnessFence fence = new WitnessFence(0, 2, 10, 100, (to, m) -> sent.add(m));

    @Test
    void shouldHoldOnlyWhenTheAnswerToItsOwnRequestGrantsIt() {
        assertThat(fence.trySolo(4, 0)).isEqualTo(Fence.Solo.PENDING);
        assertThat(sent).containsExactly(new FenceRequest(4, true, 100));
        fence.onMessage(new FenceAnswer(99, 4, true, 0), 1);
        assertThat(fence.holdsSolo(4)).as("an answer to another request").isFalse();
        fence.onTick(4, 10);
        assertThat(sent).contains(new FenceRequest(4, true, 100));
        fence.onMessage(new FenceAnswer(100, 4, true, 0), 11);
        assertThat(fence.trySolo(4, 12)).isEqualTo(Fence.Solo.HELD);
        fence.releaseSolo(4, 13);
        assertThat(fence.holdsSolo(4))
                .as("given back at once, before the witness answers")
                .isFalse();
        assertThat(sent).contains(new FenceRequest(4, false, 101));
    }

    @Test
    void shouldReportARefusalOnceThenAskAgain() {
        fence.trySolo(4, 0);
        fence.onMessage(new FenceAnswer(100, 5, true, 1), 1);
        assertThat(fence.trySolo(4, 2)).isEqualTo(Fence.Solo.REFUSED);
        assertThat(fence.refusal()).isEqualTo(new FenceAnswer(100, 5, true, 1));
        assertThat(fence.trySolo(4, 3)).isEqualTo(Fence.Solo.PENDING);
        assertThat(sent).containsExactly(new FenceRequest(4, true, 100), new FenceRequest(4, true, 101));
    }

    @Test
    void shouldAnswerAProbeWithItsNonce() {
        fence.onTick(3, 0);
        fence.onMessage(new Message.FenceProbe(42), 1);
        assertThat(sent).last().isEqualTo(new Message.FenceReport(3, false, 42));
    }

    @Test
    void shouldGiveBackAGrantOfAnEarlierLifeInTheViewTheWitnessAnswersWith() {
        fence.giveBack(0, 0);
        assertThat(sent).containsExactly(new FenceRequest(0, false, 100));
        fence.giveBack(0, 1);
        assertThat(sent).as("one request on its way at a time").hasSize(1);
        // The witness holds SOLO for this node in view 2 (an earlier life took over there): that one goes back.
        fence.onMessage(new FenceAnswer(100, 2, true, 0), 2);
        assertThat(sent).last().isEqualTo(new FenceRequest(2, false, 101));
        fence.onMessage(new FenceAnswer(101, 2, false, 0), 3);
        fence.giveBack(2, 4);
        assertThat(sent).as("the witness holds nothing for this node any more").hasSize(2);
        assertThat(fence.holdsSolo(2)).isFalse();
    }

    @Test
    void shouldGiveBackAGrantThisJoinerNeverUsedAndNotAskAgainOnceTheWitnessHoldsNone() {
        // A joiner asked while its peer had committed less; the grant came after the peer caught up.
        fence.trySolo(4, 0);
        fence.onMessage(new FenceAnswer(100, 4, true, 0), 1);
        fence.giveBack(0, 2);
        assertThat(fence.holdsSolo(4)).isFalse();
        assertThat(sent).containsExactly(new FenceRequest(4, true, 100), new FenceRequest(4, false, 101));

        WitnessFence fresh = new WitnessFence(1, 2, 10, 500, (to, m) -> sent.add(m));
        sent.clear();
        fresh.giveBack(3, 0);
        fresh.onMessage(new FenceAnswer(500, 3, true, 0), 1);
        assertThat(sent)
                .as("the peer holds it: nothing of this node's to give back")
                .hasSize(1);
        fresh.giveBack(3, 2);
        assertThat(sent).hasSize(1);
    }
}
