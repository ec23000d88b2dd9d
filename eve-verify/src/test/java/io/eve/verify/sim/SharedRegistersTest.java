package io.eve.verify.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.verify.history.Operation;
import io.eve.verify.sim.SharedRegisters.Input;
import io.eve.verify.sim.SharedRegisters.Kind;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The simulator's linearizability check can fail: made-up histories with a stale read are reported, and a
 * simulated run of a deliberately broken application (gets answer the value before the last write, on
 * every replica alike, so no divergence check can see it) fails its seed with the replay command.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedRegistersTest {
    private static final long KEY = SharedRegisters.FIRST_KEY;

    @BeforeAll
    static void quiet() {
        SimulationRunner.quietProtocolLogs();
    }

    private static Operation<Input, Long> get(int process, long from, long to, long answer) {
        return new Operation<>(process, from, to, new Input(Kind.GET, KEY, 0), answer);
    }

    private static Operation<Input, Long> put(int process, long from, long to, long value, Long replaced) {
        return new Operation<>(process, from, to, new Input(Kind.PUT, KEY, value), replaced);
    }

    @Test
    void shouldReportAReadOfAValueAlreadyOverwritten() {
        SharedRegisters registers = new SharedRegisters(1);
        registers.record(put(1, 0, 10, 5, 0L));
        registers.record(get(2, 20, 30, 0)); // the put completed before this get began: 0 is stale

        assertThat(registers.violations())
                .singleElement()
                .asString()
                .startsWith("key " + KEY + " is not linearizable: 2 operations")
                .contains("get(" + KEY + ") -> 0");
    }

    @Test
    void shouldAcceptReadsThatOverlapAWriteSeeingEitherValue() {
        SharedRegisters registers = new SharedRegisters(1);
        registers.record(put(1, 10, 50, 5, 0L));
        registers.record(get(2, 20, 30, 5));
        registers.record(new Operation<>(3, 25, 60, new Input(Kind.ADD, KEY, 2), 7L));
        registers.record(get(4, 5, 15, 0));

        assertThat(registers.violations()).isEmpty();
    }

    @Test
    void shouldLetAnAbandonedWriteTakeEffectLateButNotUndoIt() {
        SharedRegisters registers = new SharedRegisters(1);
        registers.record(put(1, 0, Operation.PENDING, 9, null));
        registers.record(get(2, 100, 110, 0)); // not yet
        registers.record(get(3, 200, 210, 9)); // now it has

        assertThat(registers.violations()).isEmpty();

        registers.record(get(4, 300, 310, 0)); // and it cannot be undone
        assertThat(registers.violations()).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"reliable", "crash", "bft"})
    void shouldFailTheSeedOfARunWhoseGetsAreStale(String profile) {
        Simulation.Settings settings = SimulationRunner.settings(400, false).withStaleGets();

        assertThatThrownBy(() -> SimulationRunner.run(profile, 1, settings))
                .isInstanceOf(SimulationFailure.class)
                .hasMessageContaining("seed 1 (profile " + profile + "): linearizability: key ")
                .hasMessageContaining("is not linearizable")
                .hasMessageContaining(
                        "reproduce: ./simulate --profile " + profile + " --seed 1 --fault-ms 400 --stale-gets");
    }
}
