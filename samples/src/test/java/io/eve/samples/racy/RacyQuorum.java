package io.eve.samples.racy;

import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.mixer.GroupAllMixer;
import io.eve.transport.LocalNetwork;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.QuorumRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import java.time.Duration;
import java.util.List;

/**
 * The race ITs' cluster: three crash-profile processes of the racy counter behind the group-all mixer
 * (every request of a batch in one parallel batch), on a {@link LocalNetwork}, and clients that accept the
 * first reply.
 */
final class RacyQuorum {
    private RacyQuorum() {}

    /** Starts processes 0 to 2 into {@code processes} (their counters into {@code apps}), all racing alike. */
    static void start(
            LocalNetwork network,
            QuorumConfig base,
            double raceProbability,
            RacyCounter[] apps,
            ReplicaRuntime[] processes,
            List<Throwable> failures) {
        start(
                network,
                base,
                new double[] {raceProbability, raceProbability, raceProbability},
                apps,
                processes,
                failures);
    }

    /**
     * Starts processes 0 to 2, the counter of node {@code n} lingering with chance {@code raceProbabilities[n]}
     * per increment.
     */
    static void start(
            LocalNetwork network,
            QuorumConfig base,
            double[] raceProbabilities,
            RacyCounter[] apps,
            ReplicaRuntime[] processes,
            List<Throwable> failures) {
        for (int node = 0; node < 3; node++) {
            apps[node] = RacyCounter.builder()
                    .raceProbability(raceProbabilities[node])
                    .build();
            processes[node] = ReplicaRuntime.builder()
                    .roles(QuorumRoles.of(base.withSelf(node)))
                    .transport(network.join(node))
                    .application(apps[node])
                    .mixer(new GroupAllMixer())
                    .executorThreads(4)
                    .onFailure(failures::add)
                    .build();
            processes[node].start();
        }
    }

    /** Adds {@code count} clients, ids 100 and up. */
    static void addClients(LocalNetwork network, int count, List<EveClient> clients) {
        for (int c = 0; c < count; c++) {
            clients.add(new EveClient(
                    network.join(100 + c),
                    ClientConfig.of(0, 1, 2)
                            .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(60))
                            .withQuorumReplies(1)));
        }
    }

    /**
     * Waits until the three replicas' stages hold the same stable batch and root, and that batch is the
     * newest any verifier committed. Equal summaries alone are not enough: a stage marks a batch stable after
     * its replies left, so right after the last reply all three may still report the batch before it, while a
     * replica that diverged at the last batch holds its own execution of it and is fetching the agreed state
     * (a fresh-clone CI run read 376 on that replica against 375 on the others).
     */
    static void awaitCommittedStates(ReplicaRuntime[] processes) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (true) {
            long committed = -1;
            for (ReplicaRuntime process : processes) {
                committed = Math.max(committed, process.status().verifiedSeq());
            }
            ReplicaRuntime.StateSummary first = processes[0].summary();
            if (first.stableSeq() >= committed
                    && first.equals(processes[1].summary())
                    && first.equals(processes[2].summary())) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the replicas did not reach the same committed state at batch " + committed);
            }
            Thread.sleep(20);
        }
    }
}
