package io.eve.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import io.eve.transport.Transport;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import java.util.stream.LongStream;

/**
 * Checks that messages went through the rings, not only that they arrived: the control channel alone would
 * deliver them too. Shared by the in-memory and the DiSNI behaviour tests.
 */
final class RingDelivery {
    private RingDelivery() {}

    /** Opens nodes 1 and 2, waits for both rings, sends 1000 messages and checks where they went. */
    static void assertMessagesTravelThroughTheRing(RdmaNodes nodes, IntFunction<Transport> open) throws Exception {
        Transport sender = open.apply(1);
        Transport receiver = open.apply(2);
        List<Long> views = new CopyOnWriteArrayList<>();
        receiver.start((from, message) -> views.add(((Message.Heartbeat) message).view()));
        sender.start((from, message) -> {});
        sender.send(2, new Message.Heartbeat(0, 0));
        RdmaDegradationTest.await(
                () -> nodes.transport(1).ringOpen(2) && nodes.transport(2).ringOpen(1));
        long[] before = nodes.transport(1).sentCounts(2);
        for (long i = 1; i <= 1000; i++) {
            sender.send(2, new Message.Heartbeat(i, i));
        }
        RdmaDegradationTest.await(() -> views.size() >= 1001);
        assertThat(views)
                .containsExactlyElementsOf(
                        LongStream.rangeClosed(0, 1000).boxed().toList());
        long[] after = nodes.transport(1).sentCounts(2);
        assertThat(after[0] - before[0]).as("messages through the ring").isEqualTo(1000);
        assertThat(after[1] - before[1])
                .as("messages through the control channel")
                .isZero();
        assertThat(nodes.transport(1).degrades(2)).isZero();
        assertThat(nodes.transport(1).status())
                .singleElement()
                .satisfies(status -> assertThat(status.path()).isEqualTo("ring"));
    }
}
