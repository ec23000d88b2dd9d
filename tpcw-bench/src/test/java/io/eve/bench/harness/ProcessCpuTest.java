package io.eve.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProcessCpuTest {
    @Test
    void readsUtimePlusStimeAfterTheCommandEvenWithSpacesAndParenthesesInIt() {
        // Fields 14 and 15 (utime 250, stime 50 ticks) after a command name that holds ") (" itself.
        String line = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 30 0 1 2 3";

        assertThat(ProcessCpu.fromStat(line)).isEqualTo(300 * 10_000_000L);
    }

    @Test
    void rejectsALineWithoutTheCommandOrWithTooFewFields() {
        assertThatThrownBy(() -> ProcessCpu.fromStat("4242 java S 1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no ')'");
        assertThatThrownBy(() -> ProcessCpu.fromStat("4242 (java) S 1 2 3"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 15 fields");
        assertThatThrownBy(() -> ProcessCpu.fromStat("4242 (java) S 1 4242 4242 0 -1 4194560 100 0 0 0 x 50 0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not numbers");
    }

    @Test
    void readsThisProcessAndGivesMinusOneForAnExitedOne() throws Exception {
        assertThat(ProcessCpu.nanos(ProcessHandle.current())).isGreaterThanOrEqualTo(0);
        Process exited = new ProcessBuilder("true").start();
        exited.waitFor();
        assertThat(ProcessCpu.nanos(exited.toHandle())).isEqualTo(-1);
    }
}
