package io.eve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.mixer.ConflictKeys;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TypedServiceTest {
    private static final AtomicInteger DECODES = new AtomicInteger();
    private static final RequestCodec<String, Integer> CODEC = RequestCodec.of(
            text -> text.getBytes(StandardCharsets.UTF_8),
            bytes -> {
                DECODES.incrementAndGet();
                return new String(bytes, StandardCharsets.UTF_8);
            },
            length -> new byte[] {length.byteValue()},
            bytes -> (int) bytes[0]);

    /** Answers the length of a word; refuses the empty word with a code. */
    static final class Lengths extends TypedService<String, Integer> {
        private final ObjectGraphState state = ObjectGraphState.builder().build();

        Lengths() {
            super(CODEC);
        }

        @Override
        public VersionedState state() {
            return state;
        }

        @Override
        public ConflictKeys conflictKeys(String word) {
            return ConflictKeys.reading(word);
        }

        @Override
        public Integer execute(String word, ExecutionContext context) {
            if (word.isEmpty()) {
                throw new ApplicationException("empty", "no word");
            }
            return word.length();
        }
    }

    private static final ExecutionContext CONTEXT = new ExecutionContext(1, 0, 0, 0, 7, 1);

    @Test
    void shouldBeAnApplicationThatDecodesEachRequestOnce() throws Exception {
        Application application = new Lengths();
        DECODES.set(0);
        PreparedRequest prepared = application.prepare(CODEC.encodeRequest("hello"));
        assertThat(prepared.conflictKeys()).isEqualTo(ConflictKeys.reading("hello"));
        assertThat(CODEC.decodeReply(prepared.execute(CONTEXT))).isEqualTo(5);
        assertThat(DECODES).hasValue(1);
        assertThat(application.conflictKeys(CODEC.encodeRequest("hi"))).isEqualTo(ConflictKeys.reading("hi"));
        assertThat(CODEC.decodeReply(application.execute(CODEC.encodeRequest("hey"), CONTEXT)))
                .isEqualTo(3);
        assertThat(((Lengths) application).codec()).isSameAs(CODEC);
    }

    @Test
    void shouldLetTheApplicationsCodedErrorsThrough() {
        Application application = new Lengths();
        assertThatThrownBy(() -> application.execute(CODEC.encodeRequest(""), CONTEXT))
                .isInstanceOf(ApplicationException.class)
                .extracting(e -> ((ApplicationException) e).code())
                .isEqualTo("empty");
    }
}
