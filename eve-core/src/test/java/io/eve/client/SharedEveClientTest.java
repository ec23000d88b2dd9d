package io.eve.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.protocol.Message;
import io.eve.transport.LocalNetwork;
import io.eve.transport.Transport;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One EveClient shared by many threads, requests pipelined, continuations that submit again. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedEveClientTest {
    private final LocalNetwork network = new LocalNetwork();
    private final Set<Long> numbers = ConcurrentHashMap.newKeySet();

    @AfterEach
    void close() {
        network.close();
    }

    /** Replica 1 echoes every request and records its number. */
    private EveClient client(int outstanding) {
        Transport replica = network.join(1);
        replica.start((from, message) -> {
            var request = ((Message.ClientRequest) message).request();
            numbers.add(request.requestSeq());
            replica.send(from, new Message.ClientReply(Reply.of(request, request.payload())));
        });
        return new EveClient(
                network.join(100),
                ClientConfig.of(1)
                        .withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(30))
                        .withMaxOutstanding(outstanding));
    }

    private static byte[] number(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    private static long number(Reply reply) {
        return ByteBuffer.wrap(reply.payload()).getLong();
    }

    @Test
    void shouldAnswerEveryThreadItsOwnRequestsOverOneClient() throws Exception {
        int threads = 8;
        int each = 300;
        try (EveClient client = client(16)) {
            List<CompletableFuture<Void>> senders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long base = t * 1_000_000L;
                senders.add(CompletableFuture.runAsync(() -> {
                    List<CompletableFuture<Reply>> replies = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        replies.add(client.submit(number(base + i)));
                    }
                    for (int i = 0; i < each; i++) {
                        assertThat(number(replies.get(i).join())).isEqualTo(base + i);
                    }
                }));
            }
            CompletableFuture.allOf(senders.toArray(CompletableFuture[]::new)).get(50, TimeUnit.SECONDS);
            assertThat(numbers).hasSize(threads * each);
            assertThat(client.outstanding()).isZero();
        }
    }

    @Test
    void shouldLetAContinuationSubmitTheNextRequest() throws Exception {
        try (EveClient client = client(1)) {
            CompletableFuture<Long> chain = CompletableFuture.completedFuture(0L);
            for (int i = 0; i < 200; i++) {
                // Each continuation runs on the thread that delivered the reply, after the client let go of
                // its lock, and takes the only slot the previous request just freed.
                chain = chain.thenCompose(n -> client.submit(number(n + 1)).thenApply(SharedEveClientTest::number));
            }
            assertThat(chain.get(50, TimeUnit.SECONDS)).isEqualTo(200L);
            assertThat(numbers).hasSize(200);
        }
    }
}
