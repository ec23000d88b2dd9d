package io.eve.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Request;
import io.eve.protocol.Message;
import io.eve.rdma.memory.InMemoryFabric;
import io.eve.transport.Transport;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the behaviour suite does not see: which path messages take, and order across both paths. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RdmaTransportTest {
    private final InMemoryFabric fabric = new InMemoryFabric();
    private final RdmaNodes nodes = new RdmaNodes(fabric::node, 8192, 512);
    private final List<Transport> opened = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(Transport::close);
        fabric.close();
    }

    @Test
    void shouldKeepOrderWhenLargeMessagesTakeTheSlowPathBetweenRingEntries() throws Exception {
        Transport sender = open(1);
        Transport receiver = open(2);
        List<Long> seqs = new CopyOnWriteArrayList<>();
        receiver.start((from, message) ->
                seqs.add(((Message.ClientRequest) message).request().requestSeq()));
        sender.start((from, message) -> {});
        sender.send(2, request(1, 8));
        RdmaDegradationTest.await(() -> nodes.transport(1).ringOpen(2) && seqs.size() == 1);
        for (long seq = 2; seq <= 3_000; seq++) {
            sender.send(2, request(seq, seq % 100 == 0 ? 4096 : 16));
        }
        RdmaDegradationTest.await(() -> seqs.size() == 3_000);
        assertThat(seqs).isSorted().doesNotHaveDuplicates();
        long[] sent = nodes.transport(1).sentCounts(2);
        assertThat(sent[0]).as("through the ring").isGreaterThan(2_900);
        assertThat(sent[1]).as("through the control channel").isGreaterThanOrEqualTo(29);
        assertThat(nodes.transport(1).degraded(2)).isFalse();
    }

    @Test
    void shouldDeliverEverythingSentBeforeThePeerListened() throws Exception {
        int early = 200;
        int late = 10;
        nodes.reserve(2);
        Transport sender = open(1);
        sender.start((from, message) -> {});
        for (long view = 0; view < early; view++) {
            sender.send(2, new Message.Heartbeat(view, view));
        }
        RdmaDegradationTest.await(() -> nodes.transport(1).failedDials(2) > 0);
        Transport receiver = open(2);
        List<Long> views = new CopyOnWriteArrayList<>();
        receiver.start((from, message) -> views.add(((Message.Heartbeat) message).view()));
        for (long view = early; view < early + late; view++) {
            sender.send(2, new Message.Heartbeat(view, view));
        }
        RdmaDegradationTest.await(() -> views.size() >= early + late);
        sender.send(2, new Message.Heartbeat(early + late, 0));
        RdmaDegradationTest.await(() -> views.contains((long) early + late));
        assertThat(views)
                .as("every message, sent before or after the receiver listened, in order, once")
                .containsExactlyElementsOf(
                        LongStream.rangeClosed(0, early + late).boxed().toList());
    }

    private static Message request(long seq, int bytes) {
        return new Message.ClientRequest(new Request(1, seq, new byte[bytes]));
    }

    private Transport open(int id) {
        Transport transport = nodes.node(id);
        opened.add(transport);
        return transport;
    }
}
