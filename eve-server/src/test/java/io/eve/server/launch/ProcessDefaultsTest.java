package io.eve.server.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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

    @Test
    void shouldLeaveALevelTheOperatorChose() {
        System.setProperty(ProcessDefaults.LEAK_LEVEL, "paranoid");

        ProcessDefaults.apply();

        assertThat(System.getProperty(ProcessDefaults.LEAK_LEVEL)).isEqualTo("paranoid");
        assertThat(System.getProperty(ProcessDefaults.LEAK_SAMPLING)).isNull();
    }

    @Test
    void shouldLeaveAnIntervalTheOperatorChose() {
        System.setProperty(ProcessDefaults.LEAK_SAMPLING, "1");

        ProcessDefaults.apply();

        assertThat(System.getProperty(ProcessDefaults.LEAK_SAMPLING)).isEqualTo("1");
    }
}
