package io.eve.verify.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class LinearizabilityCheckerTest {
    /** A register: "w:v" writes v and returns "ok"; "r" returns the value. */
    static final Model<Integer, String, String> REGISTER = new Model<>() {
        @Override
        public Integer initial() {
            return 0;
        }

        @Override
        public Integer step(Integer state, String input, String output) {
            if (input.startsWith("w:")) {
                return output == null || output.equals("ok") ? Integer.valueOf(input.substring(2)) : null;
            }
            return output == null || output.equals(Integer.toString(state)) ? state : null;
        }
    };

    private static Operation<String, String> op(int client, long from, long to, String input, String output) {
        return new Operation<>(client, from, to, input, output);
    }

    @Test
    void shouldAcceptAReadOverlappingAWriteThatSeesEitherValue() {
        List<Operation<String, String>> history = List.of(op(1, 0, 10, "w:1", "ok"), op(2, 5, 15, "r", "1"));
        assertThat(LinearizabilityChecker.check(history, REGISTER).linearizable())
                .isTrue();
        List<Operation<String, String>> old = List.of(op(1, 0, 10, "w:1", "ok"), op(2, 5, 15, "r", "0"));
        assertThat(LinearizabilityChecker.check(old, REGISTER).linearizable()).isTrue();
    }

    @Test
    void shouldRejectAStaleReadAfterTheWriteCompleted() {
        List<Operation<String, String>> history = List.of(op(1, 0, 10, "w:1", "ok"), op(2, 11, 15, "r", "0"));
        LinearizabilityChecker.Result result = LinearizabilityChecker.check(history, REGISTER);
        assertThat(result.linearizable()).isFalse();
        assertThat(result.longestPrefix()).isEqualTo(1);
    }

    @Test
    void shouldLetAPendingWriteTakeEffectOrNot() {
        List<Operation<String, String>> seen =
                List.of(op(1, 0, Operation.PENDING, "w:5", null), op(2, 20, 30, "r", "5"));
        assertThat(LinearizabilityChecker.check(seen, REGISTER).linearizable()).isTrue();
        List<Operation<String, String>> unseen =
                List.of(op(1, 0, Operation.PENDING, "w:5", null), op(2, 20, 30, "r", "0"));
        assertThat(LinearizabilityChecker.check(unseen, REGISTER).linearizable())
                .isTrue();
    }

    @Test
    void shouldRejectValuesThatGoBackInTime() {
        List<Operation<String, String>> history = List.of(
                op(1, 0, 10, "w:1", "ok"),
                op(1, 11, 20, "w:2", "ok"),
                op(2, 21, 30, "r", "2"),
                op(3, 31, 40, "r", "1"));
        assertThat(LinearizabilityChecker.check(history, REGISTER).linearizable())
                .isFalse();
    }

    /** Histories made by running operations one at a time against a real register are linearizable. */
    @Property(tries = 200)
    void sequentialExecutionsWithRandomOverlapAreLinearizable(@ForAll long seed) {
        Random random = new Random(seed);
        int value = 0;
        long clock = 0;
        List<Operation<String, String>> history = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            long invoked = clock - random.nextInt(5);
            long effect = clock + 1;
            String input = random.nextBoolean() ? "w:" + random.nextInt(4) : "r";
            String output;
            if (input.startsWith("w:")) {
                value = Integer.parseInt(input.substring(2));
                output = "ok";
            } else {
                output = Integer.toString(value);
            }
            clock = effect + 1 + random.nextInt(3);
            history.add(op(i % 4, Math.max(0, invoked), effect + random.nextInt(4), input, output));
        }
        assertThat(LinearizabilityChecker.check(history, REGISTER).linearizable())
                .isTrue();
    }
}
