package io.eve.verify.primarybackup;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.client.EveClient;
import io.eve.verify.history.ReadWriteWorkload;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Eve §6's read-only optimisation on primary-backup: both replicas answer a read once the state they read
 * committed, the client accepts equal answers, and the history stays linearizable; with the backup down,
 * reads go ordered through the surviving primary.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReadOnlyPrimaryBackupIT {
    @Test
    void shouldAnswerLinearizableReadsFromBothReplicas() throws Exception {
        try (Cluster cluster = new Cluster()) {
            List<EveClient> clients = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                clients.add(cluster.client(100 + i));
            }
            ReadWriteWorkload healthy = new ReadWriteWorkload(clients, 0, 3);
            healthy.run(2_500, 1);
            assertThat(healthy.errors()).isEmpty();
            assertThat(healthy.operations()).isGreaterThan(100);
            assertThat(healthy.violations()).isEmpty();
            long answered = clients.stream().mapToLong(EveClient::readsAnswered).sum();
            assertThat(answered).as("reads answered without agreement").isPositive();

            cluster.crash(Cluster.SECOND);
            ReadWriteWorkload degraded = new ReadWriteWorkload(clients, 10, 3);
            degraded.run(2_500, 2);
            assertThat(degraded.operations()).isGreaterThan(20);
            assertThat(degraded.violations()).isEmpty();
            assertThat(clients.stream().mapToLong(EveClient::readsReissued).sum())
                    .isPositive();
            assertThat(cluster.failures).isEmpty();
            System.out.printf(
                    "read-only optimisation, primary-backup: %d operations checked healthy, %d with the backup"
                            + " down, 0 violations; reads answered without agreement %d, reissued ordered %d%n",
                    healthy.operations(),
                    degraded.operations(),
                    clients.stream().mapToLong(EveClient::readsAnswered).sum(),
                    clients.stream().mapToLong(EveClient::readsReissued).sum());
        }
    }
}
