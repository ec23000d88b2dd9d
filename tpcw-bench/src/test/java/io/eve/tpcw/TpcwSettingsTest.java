package io.eve.tpcw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.config.ClusterConfig;
import io.eve.config.ConfigException;
import io.eve.tpcw.schema.Scale;
import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class TpcwSettingsTest {
    @Test
    void shouldTakeTheDefaultsWhenNoAppSettingIsGiven() throws IOException {
        assertThat(TpcwSettings.from(cluster(List.of()))).isEqualTo(TpcwSettings.DEFAULT);
    }

    @Test
    void shouldReadBackTheLinesItWrites() throws IOException {
        TpcwSettings settings = new TpcwSettings(new Scale(200, 3, 0.05), 4, 9);

        assertThat(TpcwSettings.from(cluster(settings.configLines()))).isEqualTo(settings);
    }

    @Test
    void shouldNameTheKeyOfACustomerScaleThatIsNotANumber() {
        assertThatThrownBy(() -> TpcwSettings.from(cluster(List.of("app.customer-scale=lots"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("app.customer-scale")
                .hasMessageContaining("lots");
    }

    @Test
    void shouldRefuseAScaleOutOfRange() {
        assertThatThrownBy(() -> TpcwSettings.from(cluster(List.of("app.items=5"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("items must be at least 20");
    }

    private static ClusterConfig cluster(List<String> appLines) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(
                "profile=primary-backup\nnodes=0@127.0.0.1:7100, 1@127.0.0.1:7101\n" + String.join("\n", appLines)));
        return ClusterConfig.parse(properties);
    }
}
