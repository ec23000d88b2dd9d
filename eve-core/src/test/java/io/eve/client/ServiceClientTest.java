package io.eve.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.ApplicationException;
import io.eve.EveException;
import io.eve.Reply;
import io.eve.Request;
import io.eve.RequestCodec;
import io.eve.protocol.Message;
import io.eve.transport.LocalNetwork;
import io.eve.transport.Transport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ServiceClient} against one replica that answers by hand: "ok:x" with x, "refuse" with an
 * {@link ApplicationException}, "crash" with any other exception, "garble" with a reply the codec refuses.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ServiceClientTest {
    private static final RequestCodec<String, Integer> CODEC = RequestCodec.of(
            request -> request.getBytes(StandardCharsets.UTF_8),
            payload -> new String(payload, StandardCharsets.UTF_8),
            reply -> Integer.toString(reply).getBytes(StandardCharsets.UTF_8),
            payload -> Integer.parseInt(new String(payload, StandardCharsets.UTF_8)));

    private final LocalNetwork network = new LocalNetwork();

    @AfterEach
    void close() {
        network.close();
    }

    private EveClient client() {
        Transport replica = network.join(1);
        replica.start((from, message) -> {
            Request request = ((Message.ClientRequest) message).request();
            replica.send(from, new Message.ClientReply(answer(request)));
        });
        return new EveClient(
                network.join(100), ClientConfig.of(1).withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(10)));
    }

    private static Reply answer(Request request) {
        String text = CODEC.decodeRequest(request.payload());
        return switch (text.split(":")[0]) {
            case "ok" -> Reply.of(request, CODEC.encodeReply(Integer.parseInt(text.split(":")[1])));
            case "refuse" ->
                Reply.failure(request, new ApplicationException("insufficient-funds", "holds 10", new byte[] {10}));
            case "crash" -> Reply.failure(request, new IllegalStateException("crashed"));
            default -> Reply.of(request, "not a number".getBytes(StandardCharsets.UTF_8));
        };
    }

    @Test
    void shouldAnswerWithTheDecodedReply() throws Exception {
        try (EveClient client = client()) {
            ServiceClient<String, Integer> service = new ServiceClient<>(client, CODEC);
            assertThat(service.invoke("ok:42")).isEqualTo(42);
            assertThat(service.call("ok:7").get(5, TimeUnit.SECONDS)).isEqualTo(7);
        }
    }

    @Test
    void shouldFailWithTheApplicationsCodeMessageAndDetail() {
        try (EveClient client = client()) {
            ServiceClient<String, Integer> service = new ServiceClient<>(client, CODEC);
            assertThatThrownBy(() -> service.invoke("refuse"))
                    .isInstanceOfSatisfying(ApplicationErrorException.class, e -> {
                        assertThat(e.code()).isEqualTo("insufficient-funds");
                        assertThat(e.message()).isEqualTo("holds 10");
                        assertThat(e.detail()).containsExactly(10);
                        assertThat(e.error().exceptionClass()).isEqualTo(ApplicationException.class.getName());
                    });
            CompletableFuture<Integer> call = service.call("refuse");
            assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOfSatisfying(
                            ApplicationErrorException.class,
                            e -> assertThat(e.code()).isEqualTo("insufficient-funds"));
        }
    }

    @Test
    void shouldFailWithTheUnexpectedCodeForOtherExceptions() {
        try (EveClient client = client()) {
            ServiceClient<String, Integer> service = new ServiceClient<>(client, CODEC);
            assertThatThrownBy(() -> service.invoke("crash"))
                    .isInstanceOfSatisfying(ApplicationErrorException.class, e -> {
                        assertThat(e.code()).isEqualTo(ApplicationException.UNEXPECTED);
                        assertThat(e.message()).isEqualTo("crashed");
                        assertThat(e.error().exceptionClass()).isEqualTo(IllegalStateException.class.getName());
                    })
                    .hasMessage("unexpected: java.lang.IllegalStateException: crashed");
        }
    }

    @Test
    void shouldFailNamingTheRequestWhenTheReplyDoesNotDecode() {
        try (EveClient client = client()) {
            ServiceClient<String, Integer> service = new ServiceClient<>(client, CODEC);
            assertThatThrownBy(() -> service.invoke("garble"))
                    .isExactlyInstanceOf(EveException.class)
                    .hasMessage("the reply to request 1 (12 bytes) could not be decoded")
                    .hasCauseInstanceOf(NumberFormatException.class);
        }
    }
}
