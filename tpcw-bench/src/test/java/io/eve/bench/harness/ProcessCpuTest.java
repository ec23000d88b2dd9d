package io.eve.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
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

    @Test
    void tellsTheJitCompilerThreadsByTheirCommand() {
        assertThat(ProcessCpu.isCompilerThread("77 (C2 CompilerThre) S 1 2 3 0 -1 0 0 0 0 0 40 2 0 0"))
                .isTrue();
        assertThat(ProcessCpu.isCompilerThread("78 (C1 CompilerThre) S 1 2 3 0 -1 0 0 0 0 0 4 1 0 0"))
                .isTrue();
        assertThat(ProcessCpu.isCompilerThread("79 (eve-stage-1) S 1 2 3 0 -1 0 0 0 0 0 40 2 0 0"))
                .isFalse();
        assertThat(ProcessCpu.isCompilerThread("80 (GC Thread#0) S 1 2 3 0 -1 0 0 0 0 0 40 2 0 0"))
                .isFalse();
        assertThatThrownBy(() -> ProcessCpu.isCompilerThread("81 C2 S 1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no command in parentheses");
    }

    @Test
    void readsTheCompilerThreadsOfThisJvmOnLinux() {
        long compiled = ProcessCpu.compilerNanos(ProcessHandle.current());
        if (Files.isDirectory(Path.of("/proc/self/task"))) {
            // This JVM compiled the test framework's code on its way here.
            assertThat(compiled).isPositive();
        } else {
            assertThat(compiled).isEqualTo(-1);
        }
    }
}
