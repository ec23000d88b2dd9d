package io.eve.samples.racy;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.mixer.GroupAllMixer;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Fig. 9 harness counts what it claims: manifestations split into masked and not masked. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaceTableIT {

    @Test
    void shouldCountManifestationsAndMaskMostUnderTheGroupAllMixer() throws Exception {
        RaceTable.Column column = RaceTable.run(new GroupAllMixer(), "group all", 8, 60);

        assertThat(column.manifested()).as("the race manifested").isPositive();
        assertThat(column.masked()).as("masked by rollback").isPositive();
        assertThat(column.masked() + column.notMasked()).isEqualTo(column.manifested());
        // Every batch committed with a lost update lost at least one update from the final count.
        assertThat(column.lostCommitted()).isGreaterThanOrEqualTo(column.notMasked());
    }

    @Test
    void shouldNeverManifestUnderTheExactMixer() throws Exception {
        RaceTable.Column column = RaceTable.run(KeyConflictMixer.unbounded(), "exact", 8, 40);

        assertThat(column.manifested()).isZero();
        assertThat(column.lostCommitted()).isZero();
    }

    @Test
    void shouldCountABatchReExecutedOnEitherReplicaAsMasked() {
        RacyCounter.RaceLog first = new RacyCounter.RaceLog(Map.of(3L, 1, 5L, 2), Set.of(3L));
        RacyCounter.RaceLog second = new RacyCounter.RaceLog(Map.of(5L, 1, 7L, 1), Set.of(7L));

        RaceTable.Column column = RaceTable.tally("t", 100, first, second, 2, 1.0);

        assertThat(column.manifested()).isEqualTo(3);
        assertThat(column.masked()).isEqualTo(2);
        assertThat(column.notMasked()).isEqualTo(1);
    }
}
