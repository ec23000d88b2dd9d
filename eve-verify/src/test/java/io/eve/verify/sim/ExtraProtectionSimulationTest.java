package io.eve.verify.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code crash-epm} profile (docs/simulation.md): the crash profile's faults plus a correlated concurrency
 * bug on two of the three replicas, injected in good intervals. With the extra protection mode (Eve §6.3) it
 * is masked and crashes still leave the system live; {@code crash-epm-off} shows that the normal quorum of
 * two commits it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExtraProtectionSimulationTest {
    private static final long FAULT_MILLIS = 1500;

    @BeforeAll
    static void quiet() {
        SimulationRunner.quietProtocolLogs();
    }

    private static Simulation.Settings settings() {
        return new Simulation.Settings(
                FAULT_MILLIS * Simulation.MS,
                SimulationRunner.CLIENTS,
                SimulationRunner.REGISTER_CLIENTS,
                false,
                false);
    }

    @Test
    void shouldMaskACorrelatedConcurrencyBugAndStayLiveWithCrashes() {
        List<String> failures = new ArrayList<>();
        int bugs = 0;
        long rollbacks = 0;
        long exits = 0;
        for (long seed = 1; seed <= 20; seed++) {
            QuorumSimulation sim = new QuorumSimulation(seed, "crash-epm", settings());
            try {
                sim.run();
            } catch (SimulationFailure failure) {
                failures.add(failure.getMessage());
            }
            bugs += sim.bugsInjected();
            rollbacks += sim.extraProtectionRollbacks();
            exits += sim.extraProtectionExits();
        }
        assertThat(failures)
                .as("%d seeds failed; the first:%n%s", failures.size(), failures.isEmpty() ? "" : failures.get(0))
                .isEmpty();
        assertThat(bugs).as("bugs injected in good intervals").isGreaterThan(5);
        assertThat(rollbacks)
                .as("rollbacks ordered by the extra protection mode")
                .isPositive();
        assertThat(exits).as("the mode left after crashes").isPositive();
    }

    /**
     * Issue 21: a replica whose stage stalls (longer than the mode's wait) at the probe of the view that the
     * stall's rollback starts must not end the mode; the correlated bug that comes right after the stall is
     * masked like any other.
     */
    @Test
    void shouldStayInTheModeAndMaskTheBugWhenAReplicaStallsAtTheProbe() {
        List<String> failures = new ArrayList<>();
        int stalls = 0;
        int bugs = 0;
        for (long seed = 1; seed <= 10; seed++) {
            QuorumSimulation sim = new QuorumSimulation(seed, "crash-epm-stall", settings());
            try {
                sim.run();
            } catch (SimulationFailure failure) {
                failures.add(failure.getMessage() + "\n" + sim.extraProtectionReport());
            }
            stalls += sim.stallsInjected();
            bugs += sim.bugsInjected();
        }
        assertThat(failures)
                .as("%d seeds failed; the first:%n%s", failures.size(), failures.isEmpty() ? "" : failures.get(0))
                .isEmpty();
        assertThat(stalls).as("stalls injected in good intervals").isGreaterThan(5);
        assertThat(bugs).as("bugs injected after them").isGreaterThan(5);
    }

    @Test
    void shouldLetTheNormalQuorumCommitTheSameBugWithoutTheMode() {
        int failed = 0;
        for (long seed = 1; seed <= 10; seed++) {
            try {
                new QuorumSimulation(seed, "crash-epm-off", settings()).run();
            } catch (SimulationFailure failure) {
                failed++;
            }
        }
        assertThat(failed).as("seeds where a client got the wrong answer").isPositive();
    }
}
