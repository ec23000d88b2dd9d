package io.eve.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Request;
import io.eve.protocol.Message;
import io.eve.transport.wire.FrameCodec;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The frame decoder over Netty's {@code EmbeddedChannel}: frames of every size arrive whole however the
 * stream is cut, including frames larger than the array it reuses.
 */
class FrameDecoderTest {
    private final NettyTransport transport = NettyTransport.builder().self(0).build();
    private final FrameCodec codec = new FrameCodec(1 << 20);

    @AfterEach
    void close() {
        transport.close();
    }

    private static Message request(long seq, int payloadBytes) {
        byte[] payload = new byte[payloadBytes];
        for (int i = 0; i < payloadBytes; i++) {
            payload[i] = (byte) (seq * 31 + i);
        }
        return new Message.ClientRequest(new Request(7, seq, payload));
    }

    private List<Message> decodeInPieces(byte[] stream, int piece) {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(transport, codec, 30_000));
        for (int at = 0; at < stream.length; at += piece) {
            channel.writeInbound(Unpooled.wrappedBuffer(stream, at, Math.min(piece, stream.length - at)));
        }
        List<Message> decoded = new ArrayList<>();
        for (Message message = channel.readInbound(); message != null; message = channel.readInbound()) {
            decoded.add(message);
        }
        assertThat(channel.isOpen()).isTrue();
        channel.finishAndReleaseAll();
        return decoded;
    }

    @Test
    void shouldDecodeFramesOfEverySizeWhateverTheStreamsPieces() {
        List<Message> sent = new ArrayList<>();
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        // Small frames, frames that make the reused array grow, one beyond what it keeps, then small again.
        int[] sizes = {0, 17, 1_000, 5_000, 40_000, 300_000, 17, 64};
        for (int i = 0; i < sizes.length; i++) {
            Message message = request(i + 1, sizes[i]);
            sent.add(message);
            stream.writeBytes(codec.encode(message));
        }
        byte[] bytes = stream.toByteArray();
        for (int piece : new int[] {1, 3, 10, 4_096, bytes.length}) {
            List<Message> decoded = decodeInPieces(bytes, piece);
            assertThat(decoded).as("cut every %d bytes", piece).hasSize(sent.size());
            for (int i = 0; i < sent.size(); i++) {
                Request expected = ((Message.ClientRequest) sent.get(i)).request();
                Request actual = ((Message.ClientRequest) decoded.get(i)).request();
                assertThat(actual.requestSeq()).isEqualTo(expected.requestSeq());
                assertThat(actual.payload())
                        .as("payload %d cut every %d", i, piece)
                        .isEqualTo(expected.payload());
            }
        }
    }
}
