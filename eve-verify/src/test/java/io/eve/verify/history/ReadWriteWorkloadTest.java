package io.eve.verify.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.verify.history.ReadWriteWorkload.Input;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadWriteWorkloadTest {
    private static final Input ADD = new Input(false, 1);
    private static final Input READ = new Input(true, 0);

    @Test
    void shouldRefuseAReadThatMissesAnAcknowledgedAdd() {
        List<Operation<Input, Long>> stale =
                List.of(new Operation<>(0, 0, 10, ADD, 1L), new Operation<>(1, 20, 30, READ, 0L));
        assertThat(LinearizabilityChecker.check(stale, new ReadWriteWorkload.Counter())
                        .linearizable())
                .isFalse();
    }

    @Test
    void shouldAcceptAReadOverlappingAnAddWithEitherValue() {
        for (long seen : new long[] {0, 1}) {
            List<Operation<Input, Long>> overlapping =
                    List.of(new Operation<>(0, 0, 30, ADD, 1L), new Operation<>(1, 10, 20, READ, seen));
            assertThat(LinearizabilityChecker.check(overlapping, new ReadWriteWorkload.Counter())
                            .linearizable())
                    .isTrue();
        }
    }

    @Test
    void shouldLetAPendingAddExplainALaterRead() {
        List<Operation<Input, Long>> pending =
                List.of(new Operation<>(0, 0, Operation.PENDING, ADD, null), new Operation<>(1, 40, 50, READ, 1L));
        assertThat(LinearizabilityChecker.check(pending, new ReadWriteWorkload.Counter())
                        .linearizable())
                .isTrue();
    }
}
