package io.eve.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.Reply;
import io.eve.Request;
import io.eve.protocol.Message;
import io.eve.transport.LocalNetwork;
import io.eve.transport.Transport;
import io.eve.transport.netty.NettyTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link EveClient} with {@link ClientConfig#withQuorumReplies}: r + 1 matching replies, broadcast retries. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class QuorumClientTest {
    private final LocalNetwork network = new LocalNetwork();
    private final Map<Integer, List<Request>> received = new ConcurrentHashMap<>();

    @AfterEach
    void close() {
        network.close();
    }

    /** How a fake replica answers a request: the payload echoed, a lie, or nothing. */
    private enum Behaviour {
        ECHO,
        LIE,
        SILENT
    }

    private void replica(int id, Behaviour behaviour) {
        Transport transport = network.join(id);
        received.put(id, new CopyOnWriteArrayList<>());
        transport.start((from, message) -> {
            Request request = ((Message.ClientRequest) message).request();
            received.get(id).add(request);
            byte[] payload = behaviour == Behaviour.LIE ? new byte[] {66} : request.payload();
            if (behaviour != Behaviour.SILENT) {
                transport.send(
                        from,
                        new Message.ClientReply(new Reply(request.clientId(), request.requestSeq(), false, payload)));
            }
        });
    }

    private EveClient client(int matching, Duration attempt) {
        return new EveClient(
                network.join(100),
                ClientConfig.of(1, 2, 3)
                        .withTimeouts(attempt, Duration.ofSeconds(5))
                        .withQuorumReplies(matching));
    }

    @Test
    void shouldNeverAcceptALyingReplicasReplyAlone() throws Exception {
        replica(1, Behaviour.LIE);
        replica(2, Behaviour.SILENT);
        replica(3, Behaviour.SILENT);
        try (EveClient client = client(2, Duration.ofMillis(50))) {
            CompletableFuture<Reply> reply = client.submit(new byte[] {7});
            assertThatThrownBy(() -> reply.get(600, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            assertThat(received.get(2))
                    .as("a timed-out attempt goes to every replica")
                    .isNotEmpty()
                    .allMatch(request -> request.requestSeq() == 1);
        }
    }

    @Test
    void shouldAcceptTwoMatchingRepliesOverOneLie() throws Exception {
        replica(1, Behaviour.LIE);
        replica(2, Behaviour.ECHO);
        replica(3, Behaviour.ECHO);
        try (EveClient client = client(2, Duration.ofMillis(50))) {
            for (byte b = 1; b <= 5; b++) {
                assertThat(client.submit(new byte[] {b})
                                .get(5, TimeUnit.SECONDS)
                                .payload())
                        .containsExactly(b);
            }
            assertThat(received.get(3).stream().map(Request::requestSeq).distinct())
                    .as("retries keep the request number")
                    .hasSizeLessThanOrEqualTo(5);
        }
    }

    @Test
    void shouldOpenAPathFromEveryReplicaWithItsFirstRequestOverTcp() throws Exception {
        // Over TCP a replica reaches a client only through a connection the client opened. Replica 1 acts as
        // the primary and hands each request to replica 2 (as ExecuteBatch would); both answer the client.
        Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
        List<NettyTransport> transports = new ArrayList<>();
        try {
            for (int id = 1; id <= 3; id++) {
                NettyTransport replica = NettyTransport.builder()
                        .self(id)
                        .listen(new InetSocketAddress("127.0.0.1", 0))
                        .peers(addresses::get)
                        .build();
                transports.add(replica);
                received.put(id, new CopyOnWriteArrayList<>());
                int self = id;
                replica.start((from, message) -> {
                    Request request = ((Message.ClientRequest) message).request();
                    received.get(self).add(request);
                    if (self == 1) {
                        replica.send(2, message);
                    }
                    if (self != 3 && (self == 1 || from == 1)) {
                        replica.send(
                                (int) request.clientId(),
                                new Message.ClientReply(Reply.of(request, request.payload())));
                    }
                });
                addresses.put(id, replica.boundAddress());
            }
            NettyTransport clientTransport =
                    NettyTransport.builder().self(100).peers(addresses::get).build();
            try (EveClient client = new EveClient(
                    clientTransport,
                    ClientConfig.of(1, 2, 3)
                            .withTimeouts(Duration.ofSeconds(20), Duration.ofSeconds(25))
                            .withQuorumReplies(2))) {
                for (byte b = 1; b <= 3; b++) {
                    assertThat(client.submit(new byte[] {b})
                                    .get(10, TimeUnit.SECONDS)
                                    .payload())
                            .as("answered by two replicas without waiting for the 20 s attempt timeout")
                            .containsExactly(b);
                }
            }
            assertThat(received.get(3))
                    .as("only the first request went to every replica")
                    .extracting(Request::requestSeq)
                    .containsExactly(1L);
        } finally {
            transports.forEach(NettyTransport::close);
        }
    }

    @Test
    void shouldCountOneReplicaOnceHoweverOftenItAnswers() throws Exception {
        replica(1, Behaviour.ECHO);
        replica(2, Behaviour.SILENT);
        replica(3, Behaviour.SILENT);
        try (EveClient client = client(2, Duration.ofMillis(30))) {
            CompletableFuture<Reply> reply = client.submit(new byte[] {9});
            assertThatThrownBy(() -> reply.get(500, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            assertThat(received.get(1).size())
                    .as("replica 1 answered several times")
                    .isGreaterThan(1);
        }
    }

    @Test
    void shouldAcceptOneReplyWhenOneMatchSuffices() throws Exception {
        replica(1, Behaviour.SILENT);
        replica(2, Behaviour.ECHO);
        replica(3, Behaviour.SILENT);
        try (EveClient client = client(1, Duration.ofMillis(50))) {
            assertThat(client.submit(new byte[] {3}).get(5, TimeUnit.SECONDS).payload())
                    .containsExactly(3);
        }
    }

    @Test
    void shouldRefuseMoreMatchesThanReplicas() {
        assertThatThrownBy(() -> ClientConfig.of(1, 2).withQuorumReplies(3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("matchingReplies");
    }
}
