package io.eve.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LocalNetworkTest {

    @Test
    void shouldDeliverInOrderAndApplyTheFirewall() throws Exception {
        try (LocalNetwork network = new LocalNetwork()) {
            Transport a = network.join(1);
            Transport b = network.join(2);
            List<Long> received = new CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(1);
            b.start((from, message) -> {
                long view = ((Message.Heartbeat) message).view();
                received.add(view);
                if (view == 99) {
                    done.countDown();
                }
            });
            a.start((from, message) -> {});
            network.setFirewall((from, to, message) ->
                    message instanceof Message.Heartbeat h && h.view() % 10 == 3 ? null : message);
            for (long i = 0; i < 100; i++) {
                a.send(2, new Message.Heartbeat(i, 0));
            }
            assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(received).hasSize(90).isSorted().doesNotContain(3L, 13L, 93L);
        }
    }

    @Test
    void shouldLoseMessagesToAClosedNode() throws Exception {
        try (LocalNetwork network = new LocalNetwork()) {
            Transport a = network.join(1);
            Transport b = network.join(2);
            List<Message> received = new CopyOnWriteArrayList<>();
            b.start((from, message) -> received.add(message));
            b.close();
            a.send(2, new Message.Heartbeat(1, 0));
            Transport restarted = network.join(2);
            CountDownLatch got = new CountDownLatch(1);
            restarted.start((from, message) -> got.countDown());
            a.send(2, new Message.Heartbeat(2, 0));
            assertThat(got.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(received).isEmpty();
        }
    }
}
