package io.eve.bench.deployed;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.Request;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.protocol.Message;
import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.KvRequest;
import io.eve.transport.netty.NettyTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The unreplicated baseline over a real socket of 127.0.0.1, driven by Eve's own client. */
class UnreplicatedServerTest {
    private UnreplicatedServer server;

    @BeforeEach
    void start() {
        server = UnreplicatedServer.of(0, 100, 64, 0, 4);
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private EveClient client() {
        NettyTransport transport = NettyTransport.builder()
                .self(5_000_000)
                .peers(Map.of(UnreplicatedServer.NODE, server.address()))
                .build();
        return new EveClient(
                transport,
                ClientConfig.of(UnreplicatedServer.NODE).withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(30)));
    }

    @Test
    void answersUpdatesWithTheObjectsVersionAndReadsWithItsBytes() throws Exception {
        try (EveClient client = client()) {
            List<CompletableFuture<Reply>> updates = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                updates.add(client.submit(AsyncClosedLoop.seededUpdate(7, i)));
            }
            List<Long> versions = new ArrayList<>();
            for (CompletableFuture<Reply> update : updates) {
                Reply reply = update.get(30, TimeUnit.SECONDS);
                assertThat(reply.error()).as(reply.errorText()).isFalse();
                versions.add(KeyValueStore.versionOf(reply.payload()));
            }
            // Every update of one object applied once, under its lock: versions 1 to 50, each once.
            assertThat(versions)
                    .containsExactlyInAnyOrderElementsOf(java.util.stream.LongStream.rangeClosed(1, 50)
                            .boxed()
                            .toList());
            assertThat(server.version(7)).isEqualTo(50);

            Reply read = client.call(KvRequest.encode(new KvRequest.Read(7)));
            assertThat(read.error()).isFalse();
            assertThat(read.payload()).hasSize(64);
            assertThat(server.executed()).isEqualTo(51);
        }
    }

    @Test
    void answersABadRequestWithAnErrorNamingWhatIsWrong() throws Exception {
        try (EveClient client = client()) {
            Reply unknown = client.call(KvRequest.encode(new KvRequest.Read(100)));
            assertThat(unknown.error()).isTrue();
            assertThat(unknown.errorText()).contains("no object 100", "ids 0 to 99");

            Reply wrongSize = client.call(KvRequest.encode(new KvRequest.Update(3, new byte[10])));
            assertThat(wrongSize.errorText()).contains("carries 10 bytes; objects here are 64 bytes");

            Reply empty = client.call(new byte[0]);
            assertThat(empty.errorText()).contains("empty payload");
            assertThat(server.executed()).isZero();
            assertThat(server.version(3)).isZero();
        }
    }

    @Test
    void dropsAndCountsARequestNumberItWasSentBefore() throws Exception {
        LinkedBlockingQueue<Reply> replies = new LinkedBlockingQueue<>();
        int self = 5_000_001;
        try (NettyTransport raw = NettyTransport.builder()
                .self(self)
                .peers(Map.of(UnreplicatedServer.NODE, server.address()))
                .build()) {
            raw.start((from, message) -> {
                if (message instanceof Message.ClientReply reply) {
                    replies.add(reply.reply());
                }
            });
            byte[] update = AsyncClosedLoop.seededUpdate(1, 42);
            raw.send(UnreplicatedServer.NODE, new Message.ClientRequest(new Request(self, 1, 1, update)));
            raw.send(UnreplicatedServer.NODE, new Message.ClientRequest(new Request(self, 1, 1, update)));
            raw.send(UnreplicatedServer.NODE, new Message.ClientRequest(new Request(self, 2, 1, update)));

            // Requests of one connection are taken in order: once 2 is answered, the second 1 was seen.
            List<Long> answered = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Reply reply = replies.poll(30, TimeUnit.SECONDS);
                assertThat(reply).as("reply " + i).isNotNull();
                answered.add(reply.requestSeq());
            }
            assertThat(answered).containsExactlyInAnyOrder(1L, 2L);
            assertThat(server.duplicates()).isEqualTo(1);
            assertThat(server.version(1)).isEqualTo(2);
            assertThat(replies.poll(200, TimeUnit.MILLISECONDS)).isNull();
        }
    }
}
