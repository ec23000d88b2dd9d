package io.eve.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.Reply;
import io.eve.protocol.Message;
import io.eve.transport.LocalNetwork;
import io.eve.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EveClientTest {
    private final LocalNetwork network = new LocalNetwork();
    private final List<Message.ClientRequest> atBackup = new CopyOnWriteArrayList<>();
    private final List<Message.ClientRequest> atPrimary = new CopyOnWriteArrayList<>();
    private volatile boolean primaryAnswers = true;

    @AfterEach
    void close() {
        network.close();
    }

    /** Replica 1 redirects to replica 2, which echoes the payload back if {@code primaryAnswers}. */
    private EveClient client(Duration attempt, Duration total, int outstanding) {
        Transport backup = network.join(1);
        backup.start((from, message) -> {
            Message.ClientRequest request = (Message.ClientRequest) message;
            atBackup.add(request);
            backup.send(
                    from,
                    new Message.Redirect(
                            request.request().clientId(), request.request().requestSeq(), 2));
        });
        Transport primary = network.join(2);
        primary.start((from, message) -> {
            Message.ClientRequest request = (Message.ClientRequest) message;
            atPrimary.add(request);
            if (primaryAnswers) {
                primary.send(
                        from,
                        new Message.ClientReply(new Reply(
                                request.request().clientId(),
                                request.request().requestSeq(),
                                false,
                                request.request().payload())));
            }
        });
        return new EveClient(
                network.join(100),
                ClientConfig.of(1, 2).withTimeouts(attempt, total).withMaxOutstanding(outstanding));
    }

    @Test
    void shouldFollowARedirectToThePrimary() {
        try (EveClient client = client(Duration.ofSeconds(5), Duration.ofSeconds(10), 8)) {
            assertThat(client.call(new byte[] {7}).payload()).containsExactly(7);
            assertThat(client.call(new byte[] {8}).payload()).containsExactly(8);
            assertThat(atBackup).hasSize(1);
        }
    }

    @Test
    void shouldResendTheSameRequestAndFailWithATimeout() throws Exception {
        primaryAnswers = false;
        // A followed redirect restarts the attempt: each round (backup, redirect, primary) takes an attempt
        // timeout and a sweep, so the deadline leaves room for several rounds on a loaded machine.
        try (EveClient client = client(Duration.ofMillis(50), Duration.ofMillis(1000), 8)) {
            CompletableFuture<Reply> reply = client.submit(new byte[] {1});
            assertThatThrownBy(() -> reply.get(5, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(RequestTimeoutException.class)
                    .hasMessageContaining("within");
            assertThat(atPrimary.size()).isGreaterThan(1);
            assertThat(atPrimary).allMatch(r -> r.request().requestSeq() == 1);
        }
    }

    @Test
    void shouldRefuseOversizedRequestsAndBoundOutstandingOnes() throws Exception {
        primaryAnswers = false;
        try (EveClient client = client(Duration.ofMillis(100), Duration.ofSeconds(10), 2)) {
            assertThatThrownBy(() -> client.submit(new byte[(1 << 20) + 1]))
                    .isInstanceOf(RequestTooLargeException.class)
                    .hasMessageContaining("1048577 bytes");
            client.submit(new byte[] {1});
            client.submit(new byte[] {2});
            CompletableFuture<Void> third = CompletableFuture.runAsync(() -> client.submit(new byte[] {3}));
            Thread.sleep(200);
            assertThat(third).as("the third waits for a free slot").isNotDone();
            primaryAnswers = true;
            third.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldSayTheClusterIsUnavailableWhenNoReplicaAnswersAtAll() {
        try (EveClient client = new EveClient(
                network.join(100), ClientConfig.of(1, 2).withTimeouts(Duration.ofMillis(50), Duration.ofMillis(300)))) {
            assertThatThrownBy(() -> client.call(new byte[] {1}))
                    .isInstanceOf(ClusterUnavailableException.class)
                    .hasMessageContaining("no replica of [1, 2] answered");
        }
    }
}
