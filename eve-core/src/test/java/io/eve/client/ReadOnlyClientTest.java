package io.eve.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.Request;
import io.eve.protocol.Message;
import io.eve.transport.LocalNetwork;
import io.eve.transport.Transport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link EveClient#read}: Eve §6's read-only optimisation from the client's side, against fake replicas. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReadOnlyClientTest {
    private final LocalNetwork network = new LocalNetwork();
    private final Map<Integer, List<Message>> received = new ConcurrentHashMap<>();

    @AfterEach
    void close() {
        network.close();
    }

    /** How a fake replica answers a read-only request; ordered requests it always answers "ordered". */
    private enum Behaviour {
        ANSWER,
        DIFFER,
        REFUSE,
        SILENT
    }

    private void replica(int id, Behaviour behaviour) {
        Transport transport = network.join(id);
        received.put(id, new CopyOnWriteArrayList<>());
        transport.start((from, message) -> {
            received.get(id).add(message);
            if (message instanceof Message.ClientRequest ordered) {
                Request request = ordered.request();
                transport.send(from, new Message.ClientReply(Reply.of(request, utf8("ordered"))));
            } else if (message instanceof Message.ReadRequest read && behaviour != Behaviour.SILENT) {
                Request request = read.request();
                Reply reply = Reply.of(request, utf8(behaviour == Behaviour.DIFFER ? "stale" : "fresh"));
                transport.send(from, new Message.ReadReply(reply, behaviour == Behaviour.REFUSE));
            }
        });
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(Reply reply) {
        return new String(reply.payload(), StandardCharsets.UTF_8);
    }

    private EveClient client(Duration readTimeout) {
        return new EveClient(
                network.join(100),
                ClientConfig.of(1, 2, 3)
                        .withTimeouts(Duration.ofMillis(100), Duration.ofSeconds(5))
                        .withReadTimeout(readTimeout));
    }

    private long ordered(int replica) {
        return received.get(replica).stream()
                .filter(Message.ClientRequest.class::isInstance)
                .count();
    }

    @Test
    void shouldAcceptAReadEveryReplicaAnsweredAlike() throws Exception {
        replica(1, Behaviour.ANSWER);
        replica(2, Behaviour.ANSWER);
        replica(3, Behaviour.ANSWER);
        try (EveClient client = client(Duration.ofSeconds(2))) {
            Reply reply = client.read(utf8("get")).get(5, TimeUnit.SECONDS);
            assertThat(text(reply)).isEqualTo("fresh");
            assertThat(client.readsAnswered()).isEqualTo(1);
            assertThat(client.readsReissued()).isZero();
            assertThat(ordered(1) + ordered(2) + ordered(3)).isZero();
            assertThat(client.outstanding()).isZero();
        }
    }

    @Test
    void shouldReissueAReadAsAnOrderedRequestWhenOneReplicaDiffers() throws Exception {
        replica(1, Behaviour.ANSWER);
        replica(2, Behaviour.DIFFER);
        replica(3, Behaviour.ANSWER);
        try (EveClient client = client(Duration.ofSeconds(2))) {
            assertThat(text(client.read(utf8("get")).get(5, TimeUnit.SECONDS))).isEqualTo("ordered");
            assertThat(client.readsAnswered()).isZero();
            assertThat(client.readsReissued()).isEqualTo(1);
        }
    }

    @Test
    void shouldReissueAReadAReplicaRefused() throws Exception {
        replica(1, Behaviour.ANSWER);
        replica(2, Behaviour.ANSWER);
        replica(3, Behaviour.REFUSE);
        try (EveClient client = client(Duration.ofSeconds(2))) {
            assertThat(text(client.read(utf8("get")).get(5, TimeUnit.SECONDS))).isEqualTo("ordered");
            assertThat(client.readsReissued()).isEqualTo(1);
        }
    }

    @Test
    void shouldReissueAReadWithoutEveryAnswerAndThenSendReadsOrderedForAWhile() throws Exception {
        replica(1, Behaviour.ANSWER);
        replica(2, Behaviour.ANSWER);
        replica(3, Behaviour.SILENT);
        try (EveClient client = client(Duration.ofMillis(100))) {
            assertThat(text(client.read(utf8("get")).get(5, TimeUnit.SECONDS))).isEqualTo("ordered");
            assertThat(text(client.read(utf8("get")).get(5, TimeUnit.SECONDS))).isEqualTo("ordered");
            assertThat(client.readsReissued())
                    .as("the second read went ordered at once")
                    .isEqualTo(1);
            long reads = received.get(1).stream()
                    .filter(Message.ReadRequest.class::isInstance)
                    .count();
            assertThat(reads).isEqualTo(1);
            assertThat(client.outstanding()).isZero();
        }
    }

    @Test
    void shouldSendReadsOrderedWhenTheOptimisationIsOff() throws Exception {
        replica(1, Behaviour.ANSWER);
        replica(2, Behaviour.ANSWER);
        replica(3, Behaviour.ANSWER);
        try (EveClient client = client(Duration.ZERO)) {
            assertThat(text(client.read(utf8("get")).get(5, TimeUnit.SECONDS))).isEqualTo("ordered");
            assertThat(client.readsAnswered() + client.readsReissued()).isZero();
        }
    }

    @Test
    void shouldHoldARequestSlotWhileAReadIsOnItsWay() throws Exception {
        replica(1, Behaviour.ANSWER);
        replica(2, Behaviour.ANSWER);
        replica(3, Behaviour.SILENT);
        try (EveClient client = new EveClient(
                network.join(100),
                ClientConfig.of(1, 2, 3)
                        .withTimeouts(Duration.ofMillis(100), Duration.ofSeconds(5))
                        .withReadTimeout(Duration.ofMillis(300))
                        .withMaxOutstanding(1))) {
            var first = client.read(utf8("get"));
            assertThat(client.outstanding())
                    .as("reads are not ordered requests yet")
                    .isZero();
            var second = client.submit(utf8("put")); // waits for the read's slot
            assertThat(text(first.get(5, TimeUnit.SECONDS))).isEqualTo("ordered");
            assertThat(text(second.get(5, TimeUnit.SECONDS))).isEqualTo("ordered");
        }
    }
}
