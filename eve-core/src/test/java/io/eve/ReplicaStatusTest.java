package io.eve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.Digest;
import org.junit.jupiter.api.Test;

class ReplicaStatusTest {

    @Test
    void shouldReadBackWhatItWrites() {
        ReplicaStatus primary = new ReplicaStatus(
                2,
                Replica.Role.PRIMARY,
                "execution primary + verifier",
                3,
                41,
                40,
                Digest.of(new byte[32]),
                41,
                1,
                2,
                10_240,
                77,
                4,
                3);
        ReplicaStatus verifier =
                new ReplicaStatus(3, Replica.Role.VERIFIER, "verifier", 3, -1, -1, null, 41, 0, 0, 0, 0, 4, 0);
        assertThat(ReplicaStatus.fromJson(primary.toJson())).isEqualTo(primary);
        assertThat(ReplicaStatus.fromJson(verifier.toJson())).isEqualTo(verifier);
        assertThat(primary.toJson()).contains("\"primary\": true", "\"joining\": false");
    }

    @Test
    void shouldNameWhatIsMissingOrUnreadable() {
        String json = new ReplicaStatus(0, Replica.Role.BACKUP, "backup", 1, 5, 5, null, -1, 0, 0, 0, 0, 0, 0).toJson();
        assertThatThrownBy(() -> ReplicaStatus.fromJson(json.replace("\"view\"", "\"sight\"")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lacks 'view'");
        assertThatThrownBy(() -> ReplicaStatus.fromJson(json.replace("\"role\": \"backup\"", "\"role\": \"boss\"")))
                .hasMessageContaining("BOSS");
        assertThatThrownBy(() -> ReplicaStatus.fromJson(json.replace("\"view\": 1", "\"view\": x1")))
                .hasMessageContaining("'view' = 'x1' is not a whole number");
    }
}
