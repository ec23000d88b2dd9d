package io.eve.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Request;
import io.eve.protocol.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour every {@link Transport} must show, run once per implementation (a subclass supplies
 * the nodes): delivery in order per pair, concurrency from many senders, large messages, and loss of
 * messages to a closed node without harm to the others.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
public abstract class TransportBehaviourSuite {
    private final List<Transport> opened = new ArrayList<>();

    /** A transport for node {@code id} in a network the nodes of one test share. */
    protected abstract Transport node(int id);

    /** Releases what {@link #node} created. */
    protected void closeNetwork() {}

    private Transport open(int id) {
        Transport transport = node(id);
        opened.add(transport);
        return transport;
    }

    @AfterEach
    public void closeAll() {
        opened.forEach(Transport::close);
        closeNetwork();
    }

    @Test
    public void shouldDeliverEveryMessageOfOnePairInOrder() throws Exception {
        Transport sender = open(1);
        Transport receiver = open(2);
        List<Long> views = new CopyOnWriteArrayList<>();
        CountDownLatch all = new CountDownLatch(1000);
        receiver.start((from, message) -> {
            assertThat(from).isEqualTo(1);
            views.add(((Message.Heartbeat) message).view());
            all.countDown();
        });
        sender.start((from, message) -> {});
        for (long i = 0; i < 1000; i++) {
            sender.send(2, new Message.Heartbeat(i, i));
        }
        assertThat(all.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(views).hasSize(1000).isSorted();
    }

    @Test
    public void shouldCarryRequestsFromManyConcurrentSenders() throws Exception {
        Transport receiver = open(10);
        Map<Integer, List<Long>> bySender = new ConcurrentHashMap<>();
        CountDownLatch all = new CountDownLatch(4 * 200);
        receiver.start((from, message) -> {
            bySender.computeIfAbsent(from, f -> new CopyOnWriteArrayList<>())
                    .add(((Message.ClientRequest) message).request().requestSeq());
            all.countDown();
        });
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            Transport sender = open(20 + s);
            sender.start((from, message) -> {});
            threads.add(new Thread(() -> {
                for (long i = 1; i <= 200; i++) {
                    sender.send(10, new Message.ClientRequest(new Request(sender.self(), i, new byte[16])));
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(all.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(bySender).hasSize(4);
        bySender.values().forEach(seqs -> assertThat(seqs).hasSize(200).isSorted());
    }

    @Test
    public void shouldCarryLargeMessagesIntact() throws Exception {
        Transport sender = open(1);
        Transport receiver = open(2);
        byte[] payload = new byte[1 << 20];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 31);
        }
        CountDownLatch got = new CountDownLatch(1);
        List<byte[]> received = new CopyOnWriteArrayList<>();
        receiver.start((from, message) -> {
            received.add(((Message.ClientRequest) message).request().payload());
            got.countDown();
        });
        sender.start((from, message) -> {});
        sender.send(2, new Message.ClientRequest(new Request(1, 1, payload)));
        assertThat(got.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(received.get(0)).isEqualTo(payload);
    }

    @Test
    public void shouldLoseMessagesToAClosedNodeAndKeepServingTheOthers() throws Exception {
        Transport sender = open(1);
        Transport gone = open(2);
        Transport alive = open(3);
        gone.start((from, message) -> {});
        CountDownLatch got = new CountDownLatch(1);
        alive.start((from, message) -> got.countDown());
        sender.start((from, message) -> {});
        gone.close();
        sender.send(2, new Message.Heartbeat(1, 1));
        sender.send(3, new Message.Heartbeat(1, 1));
        assertThat(got.await(20, TimeUnit.SECONDS)).isTrue();
    }
}
