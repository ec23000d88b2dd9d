package io.eve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The error an error reply carries: known-answer vectors of its layout (replicas compare reply digests, so
 * these bytes must never change within a layout version), refusal of other versions and malformed payloads,
 * and the mapping from exceptions.
 */
class ApplicationErrorTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final Request REQUEST = new Request(7, 3, new byte[] {1});

    @Test
    void shouldEncodeAnApplicationExceptionAsTheKnownVector() {
        ApplicationException thrown = new OutOfStock("no item 7", new byte[] {1, 2});
        Reply reply = Reply.failure(REQUEST, thrown);
        assertThat(HEX.formatHex(reply.payload()))
                .isEqualTo("00010c6f75742d6f662d73746f636b000000096e6f206974656d20370026696f2e6576652e417070"
                        + "6c69636174696f6e4572726f7254657374244f75744f6653746f636b000000020102");
        assertThat(reply.errorCode()).isEqualTo("out-of-stock");
        assertThat(reply.errorMessage()).isEqualTo("no item 7");
        assertThat(reply.applicationError().orElseThrow().detail()).containsExactly(1, 2);
    }

    @Test
    void shouldEncodeOtherExceptionsAsUnexpectedWithTheirClassAsTheKnownVectors() {
        Reply boom = Reply.failure(REQUEST, new IllegalStateException("boom"));
        assertThat(HEX.formatHex(boom.payload()))
                .isEqualTo("00010a756e657870656374656400000004626f6f6d001f6a6176612e6c616e672e496c6c6567616c"
                        + "5374617465457863657074696f6e00000000");
        Reply overflow = Reply.failure(REQUEST, new StackOverflowError());
        assertThat(HEX.formatHex(overflow.payload()))
                .isEqualTo("00010a756e657870656374656400000000001c6a6176612e6c616e672e537461636b4f766572666c"
                        + "6f774572726f7200000000");
        assertThat(boom.errorCode()).isEqualTo(ApplicationException.UNEXPECTED);
        assertThat(boom.applicationError().orElseThrow().exceptionClass()).isEqualTo("java.lang.IllegalStateException");
    }

    @Test
    void shouldKeepTheErrorTextOfRepliesBeforeCodes() {
        assertThat(Reply.failure(REQUEST, new IllegalStateException("boom")).errorText())
                .isEqualTo("java.lang.IllegalStateException: boom");
        assertThat(Reply.failure(REQUEST, new StackOverflowError()).errorText())
                .isEqualTo("java.lang.StackOverflowError");
        assertThat(Reply.of(REQUEST, new byte[] {1}).errorText()).isEmpty();
        assertThat(Reply.of(REQUEST, new byte[] {1}).errorCode()).isEmpty();
    }

    @Test
    void shouldReadATextErrorAsAReplicaError() {
        Reply stale = new Reply(7, 3, true, "stale request 3".getBytes(StandardCharsets.UTF_8));
        assertThat(stale.errorCode()).isEqualTo(ApplicationException.REPLICA);
        assertThat(stale.errorMessage()).isEqualTo("stale request 3");
        assertThat(stale.errorText()).isEqualTo("stale request 3");
    }

    @Test
    void shouldRoundTripEveryField() {
        ApplicationError error = new ApplicationError("x", "é", "", new byte[0]);
        assertThat(HEX.formatHex(error.encode())).isEqualTo("0001017800000002c3a9000000000000");
        ApplicationError full = new ApplicationError("a.B_c-9", "ünïcode ✓", "com.example.Failure", new byte[300]);
        assertThat(ApplicationError.decode(full.encode())).isEqualTo(full);
    }

    @Test
    void shouldRefuseALaterLayoutVersionNamingBoth() {
        byte[] later = HEX.parseHex("0002017800000000000000000000");
        assertThatThrownBy(() -> ApplicationError.decode(later))
                .isInstanceOf(EveException.class)
                .hasMessageContaining("layout version 2 cannot be read")
                .hasMessageContaining("reads layout version 1");
        Reply reply = new Reply(7, 3, true, later);
        assertThat(reply.errorText()).contains("layout version 2");
        assertThatThrownBy(reply::errorCode).isInstanceOf(EveException.class);
    }

    @Test
    void shouldRefuseMalformedPayloadsSayingWhatIsWrong() {
        assertThatThrownBy(() -> ApplicationError.decode(HEX.parseHex("000101780000")))
                .hasMessageContaining("malformed error reply")
                .hasMessageContaining("ends inside a field");
        assertThatThrownBy(() -> ApplicationError.decode(HEX.parseHex("00010178000000ff")))
                .hasMessageContaining("its message claims 255 bytes, 0 remain");
        assertThatThrownBy(() -> ApplicationError.decode(HEX.parseHex("0001017800000000000000000000ff")))
                .hasMessageContaining("1 bytes follow the detail");
        assertThatThrownBy(() -> ApplicationError.decode(HEX.parseHex("0001012000000000000000000000")))
                .hasMessageContaining("an error code is");
        assertThatThrownBy(() -> ApplicationError.decode(HEX.parseHex("000101780000000180000000000000")))
                .hasMessageContaining("its message is not UTF-8");
        assertThatThrownBy(() -> ApplicationError.decode(new byte[] {0}))
                .hasMessageContaining("layout version (missing)");
    }

    @Test
    void shouldRefuseCodesThatAreNotStableIdentifiers() {
        assertThatThrownBy(() -> new ApplicationException("out of stock", "m"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 'out of stock'");
        assertThatThrownBy(() -> new ApplicationException("", "m")).hasMessageContaining("1 to 64");
        assertThatThrownBy(() -> new ApplicationException("a".repeat(65), "m")).hasMessageContaining("1 to 64");
    }

    /** An application's own subclass: the reply records its class. */
    static final class OutOfStock extends ApplicationException {
        private static final long serialVersionUID = 1L;

        OutOfStock(String message, byte[] detail) {
            super("out-of-stock", message, detail);
        }
    }
}
