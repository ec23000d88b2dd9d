package io.eve.server.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProcessDefaultsTest {
    private final Map<String, String> saved = new HashMap<>();

    @BeforeEach
    void clear() {
        for (String key : new String[] {ProcessDefaults.LEAK_LEVEL, ProcessDefaults.LEAK_SAMPLING}) {
            saved.put(key, System.getProperty(key));
            System.clearProperty(key);
        }
    }

    @AfterEach
    void restore() {
        saved.forEach((key, value) -> {
            if (value == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, value);
            }
        });
    }

    @Test
    void shouldSampleFewerBuffersWhenTheOperatorSaidNothing() {
        ProcessDefaults.apply();

        assertThat(System.getProperty(ProcessDefaults.LEAK_SAMPLING)).isEqualTo("4096");
        assertThat(System.getProperty(ProcessDefaults.LEAK_LEVEL)).isNull();
    }

    @ParameterizedTest
    @CsvSource({"io.netty.leakDetection.level, paranoid", "io.netty.leakDetection.samplingInterval, 1"})
    void shouldLeaveWhatTheOperatorChose(String key, String value) {
        System.setProperty(key, value);

        ProcessDefaults.apply();

        assertThat(System.getProperty(key)).isEqualTo(value);
        assertThat(System.getProperty(ProcessDefaults.LEAK_SAMPLING))
                .as("no interval of ours beside the operator's choice")
                .isEqualTo(key.equals(ProcessDefaults.LEAK_SAMPLING) ? value : null);
    }
}
