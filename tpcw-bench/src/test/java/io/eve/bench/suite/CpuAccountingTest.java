package io.eve.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuAccountingTest {
    @Test
    void shouldDivideCpuByCommittedRequests() {
        assertThat(CpuAccounting.microsPerRequest(3_000_000, 1_000)).isEqualTo(3.0);
        assertThat(CpuAccounting.microsPerRequest(3_000_000, 0)).isNaN();
    }

    @Test
    void shouldCompareAgainstReplicasTimesTheUnreplicatedServer() {
        assertThat(CpuAccounting.ratio(6.0, 2, 3.0)).isEqualTo(1.0);
        assertThat(CpuAccounting.ratio(6.9, 2, 3.0)).isCloseTo(1.15, within(1e-9));
        assertThat(CpuAccounting.ratio(9.0, 3, 1.5)).isEqualTo(2.0);
    }

    @Test
    void shouldGiveNoRatioWithoutABaseline() {
        assertThat(CpuAccounting.ratio(6.0, 2, 0.0)).isNaN();
        assertThat(CpuAccounting.ratio(Double.NaN, 2, 3.0)).isNaN();
        assertThatThrownBy(() -> CpuAccounting.ratio(1.0, 0, 1.0)).hasMessageContaining("replica");
    }

    @Test
    void shouldChargeTheServersWhatTheOtherThreadsDidNotUse() {
        CpuMeter.Snapshot start = new CpuMeter.Snapshot(
                1_000,
                Map.of(1L, 100L, 2L, 50L, 3L, 10L),
                Map.of(1L, CpuMeter.Owner.SERVER, 2L, CpuMeter.Owner.CLIENT, 3L, CpuMeter.Owner.JVM),
                5_000);
        // thread 4 (a server thread) started during the interval; thread 5 (suite) too
        CpuMeter.Snapshot end = new CpuMeter.Snapshot(
                2_000,
                Map.of(1L, 400L, 2L, 250L, 3L, 60L, 4L, 100L, 5L, 20L),
                Map.of(
                        1L, CpuMeter.Owner.SERVER,
                        2L, CpuMeter.Owner.CLIENT,
                        3L, CpuMeter.Owner.JVM,
                        4L, CpuMeter.Owner.SERVER,
                        5L, CpuMeter.Owner.SUITE),
                5_030);
        CpuMeter.Usage usage = CpuMeter.between(start, end);
        assertThat(usage.processNanos()).isEqualTo(1_000);
        assertThat(usage.serverThreadNanos()).isEqualTo(400);
        assertThat(usage.clientNanos()).isEqualTo(200);
        assertThat(usage.jvmNanos()).isEqualTo(50);
        assertThat(usage.suiteNanos()).isEqualTo(20);
        assertThat(usage.compilerNanos())
                .as("the JIT's, whose threads are hidden")
                .isEqualTo(30);
        // the rest of the process's time (garbage collection, ended threads) is the servers'
        assertThat(usage.serverNanos()).isEqualTo(1_000 - 200 - 50 - 30 - 20);
    }
}
