package io.eve.samples.racy;

import io.eve.Reply;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.mixer.GroupAllMixer;
import io.eve.mixer.Mixer;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.mixer.experiment.FalseNegativeMixer;
import io.eve.transport.LocalNetwork;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.PrimaryBackupRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Eve Fig. 9 on the racy counter: how often the concurrency bug manifests under mixers of decreasing
 * aggressiveness, and how often primary-backup masks it by rollback and sequential re-execution. A
 * manifestation is a batch in which at least one replica lost an update; it is masked if the batch was
 * rolled back and executed again (the tokens differed), not masked if it committed as first executed,
 * which needs both replicas to have lost updates alike.
 *
 * <p>Usage: {@code java -cp samples/target/eve-samples.jar io.eve.samples.racy.RaceTable [rounds]
 * [clients]}, defaults 400 rounds of 8 clients' increments per mixer.
 */
public final class RaceTable {
    private static final double RACE_PROBABILITY = 0.2;
    private static final int EXECUTOR_THREADS = 4;

    /** One column of the table. */
    public record Column(
            String mixer,
            long requests,
            int manifested,
            int masked,
            int notMasked,
            long lostCommitted,
            double perSecond) {}

    private RaceTable() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        PrintStream out = System.out;
        out.printf(
                "racy counter, primary-backup over LocalNetwork, %d clients x %d increments per mixer,"
                        + " %d executor threads, race probability %.2f%n",
                clients, rounds, EXECUTOR_THREADS, RACE_PROBABILITY);
        List<Column> columns = new ArrayList<>();
        for (NamedMixer mixer : mixers()) {
            Column column = run(mixer.mixer(), mixer.name(), clients, rounds);
            columns.add(column);
            out.printf("  %s done%n", column.mixer());
        }
        print(out, columns);
    }

    /** A mixer and its column heading. */
    public record NamedMixer(String name, Mixer mixer) {}

    /** The mixers of Eve Fig. 9, most aggressive first. */
    public static List<NamedMixer> mixers() {
        return List.of(
                new NamedMixer("group all", new GroupAllMixer()),
                new NamedMixer("1% FN", new FalseNegativeMixer(KeyConflictMixer.unbounded(), 0.01)),
                new NamedMixer("0.5% FN", new FalseNegativeMixer(KeyConflictMixer.unbounded(), 0.005)),
                new NamedMixer("0.1% FN", new FalseNegativeMixer(KeyConflictMixer.unbounded(), 0.001)),
                new NamedMixer("exact", KeyConflictMixer.unbounded()));
    }

    /** Runs {@code clients} closed-loop clients for {@code rounds} increments each and reads both replicas' race logs. */
    public static Column run(Mixer mixer, String name, int clients, int rounds) throws Exception {
        try (LocalNetwork network = new LocalNetwork()) {
            List<Throwable> failures = new ArrayList<>();
            RacyCounter[] apps = new RacyCounter[2];
            ReplicaRuntime[] replicas = new ReplicaRuntime[2];
            for (int node = 0; node < 2; node++) {
                apps[node] =
                        RacyCounter.builder().raceProbability(RACE_PROBABILITY).build();
                replicas[node] = ReplicaRuntime.builder()
                        .roles(PrimaryBackupRoles.of(
                                PrimaryBackupConfig.of(0, 1, node).withBatching(1, 32, 5_000_000L)))
                        .transport(network.join(node))
                        .application(apps[node])
                        .mixer(mixer)
                        .executorThreads(EXECUTOR_THREADS)
                        .onFailure(failure -> {
                            synchronized (failures) {
                                failures.add(failure);
                            }
                        })
                        .build();
                replicas[node].start();
            }
            List<EveClient> eveClients = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                eveClients.add(new EveClient(
                        network.join(100 + c),
                        ClientConfig.of(0, 1).withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(60))));
            }
            long start = System.nanoTime();
            for (int round = 0; round < rounds; round++) {
                List<CompletableFuture<Reply>> replies = new ArrayList<>();
                for (EveClient client : eveClients) {
                    replies.add(client.submit(RacyCounter.increment()));
                }
                for (CompletableFuture<Reply> reply : replies) {
                    if (reply.get(60, TimeUnit.SECONDS).error()) {
                        throw new IllegalStateException(
                                "an increment failed: " + reply.get().errorText());
                    }
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long committed = replicas[0].committed();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (replicas[1].committed() < committed && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
            }
            eveClients.forEach(EveClient::close);
            for (ReplicaRuntime replica : replicas) {
                replica.close();
            }
            synchronized (failures) {
                if (!failures.isEmpty()) {
                    throw new IllegalStateException("a replica failed", failures.get(0));
                }
            }
            if (apps[0].value() != apps[1].value()) {
                throw new IllegalStateException(
                        "the replicas committed different counts: " + apps[0].value() + " and " + apps[1].value());
            }
            long requests = (long) clients * rounds;
            return tally(name, requests, apps[0].raceLog(), apps[1].raceLog(), requests - apps[0].value(), seconds);
        }
    }

    static Column tally(
            String name,
            long requests,
            RacyCounter.RaceLog first,
            RacyCounter.RaceLog second,
            long lostCommitted,
            double seconds) {
        Set<Long> manifested = new HashSet<>(first.lostByBatch().keySet());
        manifested.addAll(second.lostByBatch().keySet());
        Set<Long> reExecuted = new HashSet<>(first.reExecutedBatches());
        reExecuted.addAll(second.reExecutedBatches());
        int masked = 0;
        for (long batch : manifested) {
            if (reExecuted.contains(batch)) {
                masked++;
            }
        }
        return new Column(
                name,
                requests,
                manifested.size(),
                masked,
                manifested.size() - masked,
                lostCommitted,
                requests / seconds);
    }

    static void print(PrintStream out, List<Column> columns) {
        out.println();
        out.printf("%-36s", "");
        columns.forEach(c -> out.printf("%12s", c.mixer()));
        out.println();
        row(out, "batches where the bug manifested", columns, c -> Long.toString(c.manifested()));
        row(out, "masked by rollback", columns, c -> Long.toString(c.masked()));
        row(out, "not masked (alike on both)", columns, c -> Long.toString(c.notMasked()));
        row(out, "updates lost in the committed count", columns, c -> Long.toString(c.lostCommitted()));
        row(out, "increments per second", columns, c -> String.format("%,.0f", c.perSecond()));
    }

    private static void row(
            PrintStream out, String label, List<Column> columns, java.util.function.Function<Column, String> cell) {
        out.printf("%-36s", label);
        columns.forEach(c -> out.printf("%12s", cell.apply(c)));
        out.println();
    }
}
