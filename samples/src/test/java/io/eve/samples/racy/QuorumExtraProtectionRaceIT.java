package io.eve.samples.racy;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.transport.LocalNetwork;
import io.eve.verify.quorum.ExtraProtectionConfig;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.QuorumRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Eve §6.3 with the crash profile: the racy counter under the group-all mixer, with the extra protection
 * mode off and then on in the same run (docs/reliability.md). Without it, a batch whose race lost the same
 * updates on two of the three replicas has a quorum of matching tokens and commits; in the mode, the third
 * token's mismatch orders a rollback and sequential re-execution, so with the mode on no committed update is
 * lost: every increment a client got a reply for is in the final count of every replica, and the replies
 * are the counts 1 to N, each once (a lost update that committed answers two increments with one count).
 * Two replicas race and the third never does: a race that strikes all three alike gives three matching tokens,
 * which no protocol can see, so the test leaves that case out by construction rather than by luck. The
 * race manifests in about half of the batches here, so the runs start with rounds of reads, which give the
 * verifiers their k clean batches (with the mode on, until every verifier is in it); with increments alone
 * a good interval may not come for a long while.
 *
 * <p>Issue 21: a replica paused at the probe of a rollback's view (longer than the mode's wait, on a loaded
 * machine) used to end the mode at every verifier, after which such a batch committed: one CI run lost 3.
 * A later CI run lost 4 with the mode on and never left: the counter then had a second, unintended race (two
 * increments passing its check before either wrote) that a loaded JVM repeated alike on all three replicas,
 * so all three tokens matched; the counter now has only the deliberate one (see {@link RacyCounter}). A CI
 * run on 2026-11-27 lost 2 in batch 106, the only batch with a loss that was not re-executed, where each of
 * the three replicas saw one write overwrite the count (two updates in all, with no other loss unmasked): the
 * deliberate race striking all three alike, hence the clean replica. When the count falls short, the run logs
 * each replica's lost updates by batch.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class QuorumExtraProtectionRaceIT {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumExtraProtectionRaceIT.class);
    private static final int CLIENTS = 8;
    private static final int ROUNDS = 150;
    /** Rounds of reads first, which never race: more than k clean batches, so the mode is on when increments start. */
    private static final int WARM_UP_ROUNDS = 16;
    /**
     * With the mode on, reads go on until every verifier is in it (the assertion is about the mode, and a
     * batch late on a loaded machine restarts a verifier's run of k); never this many.
     */
    private static final int MAX_WARM_UP_ROUNDS = 400;

    private static final double RACE_PROBABILITY = 0.02;

    /**
     * The replica whose increments never linger. With all three racing, the race sometimes struck all three
     * alike (the same increment lingering on each and overwriting the same others): three matching tokens,
     * which no execute-verify protocol can see (Eve §6.3), about one run in a hundred at this chance. Two
     * racing replicas still give what the mode is for, a wrong result on two replicas alike (a quorum) that
     * the third, clean token outvotes only in the mode.
     */
    private static final int CLEAN = 2;

    /**
     * One run's figures: batches where the race manifested on some replica, on both racing replicas, those
     * re-executed sequentially, batches where it struck both alike (the same increments the same way, so
     * their tokens matched), updates lost in the committed count, and view changes (the most any verifier
     * started).
     */
    record Run(
            String mode,
            long requests,
            int manifested,
            int onSeveral,
            int reExecuted,
            int alike,
            long lostCommitted,
            long distinctReplies,
            long viewChanges,
            double perSecond) {}

    @Test
    void shouldLoseNoCommittedUpdateInExtraProtectionMode() throws Exception {
        Run off = run("off", ExtraProtectionConfig.OFF);
        Run on = run("on", new ExtraProtectionConfig(true, 8, 20_000_000L));
        for (Run run : List.of(off, on)) {
            LOG.info("extra protection {}", run);
        }
        assertThat(off.manifested()).as("the race manifested").isPositive();
        assertThat(on.manifested()).as("the race manifested").isPositive();
        assertThat(on.viewChanges())
                .as("rollbacks (view changes) ordered in the mode")
                .isPositive();
        assertThat(on.lostCommitted())
                .as("updates lost in the committed count with the mode on: %s (off: %s)", on, off)
                .isZero();
        assertThat(on.distinctReplies())
                .as("increments answered with distinct counts 1 to N with the mode on: %s", on)
                .isEqualTo(on.requests());
    }

    private static Run run(String mode, ExtraProtectionConfig protection) throws Exception {
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        RacyCounter[] apps = new RacyCounter[3];
        ReplicaRuntime[] processes = new ReplicaRuntime[3];
        List<EveClient> clients = new ArrayList<>();
        Set<Long> counts = new HashSet<>();
        long started = System.nanoTime();
        long viewChanges = 0;
        LOG.info("extra protection {}: starting", mode);
        try (LocalNetwork network = new LocalNetwork()) {
            try {
                QuorumConfig base = QuorumConfig.crash(new int[] {0, 1, 2}, 0)
                        .withTimeouts(1_000_000_000L, 50_000_000L)
                        .withBatching(1, 32, 5_000_000L)
                        .withExtraProtection(protection);
                double[] chances = {RACE_PROBABILITY, RACE_PROBABILITY, RACE_PROBABILITY};
                chances[CLEAN] = 0;
                RacyQuorum.start(network, base, chances, apps, processes, failures);
                RacyQuorum.addClients(network, CLIENTS, clients);
                int warmUp = 0;
                while (warmUp < WARM_UP_ROUNDS || (protection.enabled() && !everyVerifierInTheMode(processes))) {
                    assertThat(warmUp)
                            .as("rounds of reads before every verifier is in the mode")
                            .isLessThan(MAX_WARM_UP_ROUNDS);
                    round(clients, RacyCounter.read());
                    warmUp++;
                }
                for (int round = 0; round < ROUNDS; round++) {
                    for (Reply reply : round(clients, RacyCounter.increment())) {
                        counts.add(RacyCounter.countOf(reply.payload()));
                    }
                }
                RacyQuorum.awaitCommittedStates(processes);
                for (ReplicaRuntime process : processes) {
                    viewChanges = Math.max(viewChanges, process.status().viewChanges());
                }
            } finally {
                clients.forEach(EveClient::close);
                for (ReplicaRuntime process : processes) {
                    if (process != null) {
                        process.close();
                    }
                }
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        assertThat(failures).isEmpty();
        Map<Long, Set<Integer>> lostOn = new HashMap<>();
        Set<Long> reExecuted = new HashSet<>();
        for (int node = 0; node < 3; node++) {
            RacyCounter.RaceLog log = apps[node].raceLog();
            for (Long batch : log.lostByBatch().keySet()) {
                lostOn.computeIfAbsent(batch, b -> new HashSet<>()).add(node);
            }
            reExecuted.addAll(log.reExecutedBatches());
        }
        int onSeveral = (int)
                lostOn.values().stream().filter(nodes -> nodes.size() >= 2).count();
        int reExecutedManifestations =
                (int) lostOn.keySet().stream().filter(reExecuted::contains).count();
        assertThat(apps[CLEAN].raceLog().lostByBatch())
                .as("replica %d never lingers, so the race never strikes it", CLEAN)
                .isEmpty();
        int alike = 0;
        for (Map.Entry<Long, Set<Integer>> entry : lostOn.entrySet()) {
            long batch = entry.getKey();
            if (entry.getValue().size() == 2 && struckAlike(apps, batch)) {
                alike++;
                LOG.info(
                        "extra protection {}: the race struck batch {} alike on replicas 0 and 1{}: {}",
                        mode,
                        batch,
                        reExecuted.contains(batch) ? " (re-executed)" : "",
                        apps[0].raceLog().strikesOf(batch));
            }
        }
        long requests = (long) CLIENTS * ROUNDS;
        if (requests != apps[0].value()) {
            for (int node = 0; node < 3; node++) {
                LOG.info(
                        "extra protection {}: replica {} lost {} by batch, re-executed {}",
                        mode,
                        node,
                        apps[node].raceLog().lostByBatch(),
                        apps[node].raceLog().reExecutedBatches());
            }
        }
        for (RacyCounter app : apps) {
            assertThat(app.value()).as("every replica's final count").isEqualTo(apps[0].value());
        }
        long distinctReplies =
                counts.stream().filter(count -> count >= 1 && count <= requests).count();
        return new Run(
                mode,
                requests,
                lostOn.size(),
                onSeveral,
                reExecutedManifestations,
                alike,
                requests - apps[0].value(),
                distinctReplies,
                viewChanges,
                requests / seconds);
    }

    /** One request from every client, all in flight together; their replies, none an error. */
    private static List<Reply> round(List<EveClient> clients, byte[] payload) throws Exception {
        List<CompletableFuture<Reply>> futures = new ArrayList<>();
        for (EveClient client : clients) {
            futures.add(client.submit(payload));
        }
        List<Reply> replies = new ArrayList<>();
        for (CompletableFuture<Reply> future : futures) {
            Reply reply = future.get(60, TimeUnit.SECONDS);
            assertThat(reply.error()).isFalse();
            replies.add(reply);
        }
        return replies;
    }

    /** Whether the racing replicas' executions of {@code batch} struck the same increments the same way. */
    private static boolean struckAlike(RacyCounter[] apps, long batch) {
        return apps[0].raceLog().strikesOf(batch).equals(apps[1].raceLog().strikesOf(batch));
    }

    private static boolean everyVerifierInTheMode(ReplicaRuntime[] processes) {
        for (ReplicaRuntime process : processes) {
            if (!process.inspect(roles -> ((QuorumRoles) roles).verifier().extraProtection())) {
                return false;
            }
        }
        return true;
    }
}
