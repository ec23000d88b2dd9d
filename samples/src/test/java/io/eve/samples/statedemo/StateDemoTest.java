package io.eve.samples.statedemo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StateDemoTest {
    @Test
    void shouldDetectTheDivergenceRollBackAndCatchUpTheLaggingReplica() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        boolean ok = StateDemo.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(output).isTrue();
        assertThat(output)
                .contains("batch 17: roots differ")
                .contains("incremental transfer")
                .contains("replicas agree: true");
    }
}
