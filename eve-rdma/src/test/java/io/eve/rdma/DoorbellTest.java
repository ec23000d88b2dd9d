package io.eve.rdma;

import static io.eve.rdma.RdmaDegradationTest.await;
import static org.assertj.core.api.Assertions.assertThat;

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

/**
 * A ring entry wakes a receiver whose thread went to sleep: an armed receiver parks for its longest pause at
 * once, an hour here, longer than the test may run, so every message below arrives only because the sender
 * rang the doorbell its receiver armed (or because the receiver's last look before sleeping found it).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DoorbellTest {
    private static final long HOUR_MICROS = TimeUnit.HOURS.toMicros(1);

    private final InMemoryFabric fabric = new InMemoryFabric();
    private final RdmaNodes nodes = new RdmaNodes(
            fabric::node,
            1 << 16,
            1024,
            builder -> builder.maxIdleParkMicros(HOUR_MICROS).livenessMillis(TimeUnit.MINUTES.toMillis(10)));
    private final List<Transport> opened = new CopyOnWriteArrayList<>();
    private final List<Long> views = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(Transport::close);
        fabric.close();
    }

    @Test
    void shouldWakeASleepingReceiverWithEveryRingEntry() throws Exception {
        Transport sender = open(1);
        Transport receiver = open(2);
        receiver.start((from, message) -> views.add(((Message.Heartbeat) message).view()));
        sender.start((from, message) -> {});
        sender.send(2, new Message.Heartbeat(0, 0));
        await(() ->
                views.size() == 1 && transport(1).ringOpen(2) && transport(2).ringOpen(1));
        long viaRing = transport(1).sentCounts(2)[0];
        long viaControl = transport(1).sentCounts(2)[1];
        for (long view = 1; view <= 20; view++) {
            long sleeps = transport(2).sleeps();
            sender.send(2, new Message.Heartbeat(view, view));
            long expected = view + 1;
            await(() -> views.size() == expected);
            // The receiver went idle again and armed its doorbell (an hour's park next) before the next message.
            await(() -> transport(2).sleeps() > sleeps);
        }
        assertThat(views)
                .containsExactlyElementsOf(LongStream.rangeClosed(0, 20).boxed().toList());
        assertThat(transport(1).sentCounts(2)[0] - viaRing)
                .as("messages through the ring")
                .isEqualTo(20);
        assertThat(transport(1).sentCounts(2)[1])
                .as("messages by the control channel")
                .isEqualTo(viaControl);
        assertThat(transport(1).doorbellsRung(2)).as("doorbells node 1 rang").isPositive();
        assertThat(transport(2).doorbellsReceived()).isEqualTo(fabric.doorbellsRung());
        assertThat(transport(1).degrades(2)).isZero();
    }

    private RdmaTransport transport(int id) {
        return nodes.transport(id);
    }

    private Transport open(int id) {
        Transport transport = nodes.node(id);
        opened.add(transport);
        return transport;
    }
}
