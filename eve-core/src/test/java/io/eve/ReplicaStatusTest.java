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
                3,
                "extra protection: batch 812: the token of replica 2 differs from the quorum's, 3 ms after the"
                        + " quorum (the wait is 10 ms); a \"quoted\" \\ path\n\tand a bell \u0007",
                true);
        ReplicaStatus verifier = new ReplicaStatus(
                3, Replica.Role.VERIFIER, "verifier", 3, -1, -1, null, 41, 0, 0, 0, 0, 4, 0, "", true);
        assertThat(ReplicaStatus.fromJson(primary.toJson())).isEqualTo(primary);
        assertThat(ReplicaStatus.fromJson(verifier.toJson())).isEqualTo(verifier);
        assertThat(primary.toJson()).contains("\"primary\": true", "\"joining\": false");
    }

    @Test
    void readsTheStatusOfAReplicaBuiltBeforeTheLastViewChangeWasReported() {
        String json = new ReplicaStatus(
                        0, Replica.Role.BACKUP, "backup", 1, 5, 5, null, -1, 0, 0, 0, 0, 0, 0, "why", true)
                .toJson()
                .replace(", \"lastViewChange\": \"why\"", "");

        assertThat(json).doesNotContain("lastViewChange");
        assertThat(ReplicaStatus.fromJson(json).lastViewChange()).isEmpty();
    }

    @Test
    void shouldSayWhetherARestartedVerifierCountsTowardsViewChangesYet() {
        ReplicaStatus rejoined = new ReplicaStatus(
                3, Replica.Role.VERIFIER, "verifier", 4, -1, -1, null, 17, 0, 0, 0, 0, 0, 0, "", false);

        assertThat(rejoined.toJson()).contains("\"countsInViewChanges\": false");
        assertThat(ReplicaStatus.fromJson(rejoined.toJson())).isEqualTo(rejoined);
        String older = rejoined.toJson().replace(", \"countsInViewChanges\": false", "");
        assertThat(older).doesNotContain("countsInViewChanges");
        assertThat(ReplicaStatus.fromJson(older).countsInViewChanges())
                .as("a replica built before the field existed said nothing: read as counting")
                .isTrue();
    }

    @Test
    void readsBackALongReasonFullOfEscapes() {
        String reason = "a \"quoted\" \\ line\n".repeat(20_000);
        ReplicaStatus status = new ReplicaStatus(
                1, Replica.Role.PRIMARY, "primary", 2, 9, 9, null, -1, 0, 0, 0, 0, 1, 0, reason, true);

        assertThat(ReplicaStatus.fromJson(status.toJson()).lastViewChange()).isEqualTo(reason);
    }

    @Test
    void escapesWhatJsonCannotHoldInAString() {
        assertThat(ReplicaStatus.escape("a \"b\" \\ c\n\u0001")).isEqualTo("a \\\"b\\\" \\\\ c\\n\\u0001");
        assertThat(ReplicaStatus.unescape(ReplicaStatus.escape("a \"b\" \\ c\n\u0001")))
                .isEqualTo("a \"b\" \\ c\n\u0001");
        assertThatThrownBy(() -> ReplicaStatus.unescape("cut \\u00"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cut short");
    }

    @Test
    void shouldNameWhatIsMissingOrUnreadable() {
        String json = new ReplicaStatus(0, Replica.Role.BACKUP, "backup", 1, 5, 5, null, -1, 0, 0, 0, 0, 0, 0, "", true)
                .toJson();
        assertThatThrownBy(() -> ReplicaStatus.fromJson(json.replace("\"view\"", "\"sight\"")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lacks 'view'");
        assertThatThrownBy(() -> ReplicaStatus.fromJson(json.replace("\"role\": \"backup\"", "\"role\": \"boss\"")))
                .hasMessageContaining("BOSS");
        assertThatThrownBy(() -> ReplicaStatus.fromJson(json.replace("\"view\": 1", "\"view\": x1")))
                .hasMessageContaining("'view' = 'x1' is not a whole number");
    }
}
