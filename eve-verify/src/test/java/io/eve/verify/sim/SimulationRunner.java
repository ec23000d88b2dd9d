package io.eve.verify.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs simulations from the command line (docs/simulation.md): a range of seeds under one fault profile,
 * printing each failing seed and a summary, or one seed with its full event log.
 *
 * <pre>
 *   --profile reliable|lossy|fast-restart|unordered   primary-backup (default reliable)
 *             crash|crash-lossy|bft|bft-lossy|bft-forge  the quorum protocol
 *   --seeds N        how many seeds, from --first (default 1) on
 *   --first S        the first seed
 *   --seed S         run only seed S and print every event
 *   --fault-ms M     how long faults are injected per run (default 1500)
 * </pre>
 */
public final class SimulationRunner {
    static final long DEFAULT_FAULT_MILLIS = 1_500;
    static final int CLIENTS = 3;

    private SimulationRunner() {}

    /** The command that replays one seed with its full event log. */
    static String reproduction(String profile, long seed) {
        return "./simulate --profile " + profile + " --seed " + seed;
    }

    /** Runs one seed; a broken invariant throws {@link SimulationFailure}. */
    static Simulation.Outcome runSeed(String profile, long seed, long faultMillis, boolean verbose) {
        quietProtocolLogs();
        Simulation.Settings settings = new Simulation.Settings(faultMillis * Simulation.MS, CLIENTS, verbose);
        if (isQuorumProfile(profile)) {
            return new QuorumSimulation(seed, profile, settings).run();
        }
        return new Simulation(seed, profile, settings).run();
    }

    /** The quorum protocol's profiles (Eve §6.1): crash (u = 1, r = 0) and bft (u = r = 1), each also lossy. */
    static boolean isQuorumProfile(String profile) {
        return List.of("crash", "crash-lossy", "bft", "bft-lossy", "bft-forge").contains(profile);
    }

    /** Rollbacks and takeovers are logged at WARN; hundreds of runs would drown the report in them. */
    static void quietProtocolLogs() {
        System.setProperty("org.slf4j.simpleLogger.log.io.eve", "error");
    }

    public static void main(String[] args) {
        String profile = "reliable";
        long first = 1;
        long count = 100;
        long faultMillis = DEFAULT_FAULT_MILLIS;
        Long single = null;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : "";
            switch (args[i]) {
                case "--profile" -> profile = value;
                case "--seeds" -> count = Long.parseLong(value);
                case "--first" -> first = Long.parseLong(value);
                case "--seed" -> single = Long.parseLong(value);
                case "--fault-ms" -> faultMillis = Long.parseLong(value);
                default ->
                    throw new IllegalArgumentException("unknown argument '" + args[i]
                            + "'; expected --profile, --seeds, --first, --seed or --fault-ms");
            }
            i++;
        }
        if (!isQuorumProfile(profile)) {
            Faults.named(profile);
        }
        if (single != null) {
            replay(profile, single, faultMillis);
            return;
        }
        sweep(profile, first, count, faultMillis);
    }

    private static void replay(String profile, long seed, long faultMillis) {
        try {
            Simulation.Outcome outcome = runSeed(profile, seed, faultMillis, true);
            System.out.println("seed " + seed + " passed: " + outcome);
        } catch (SimulationFailure failure) {
            System.out.println(failure.getMessage());
            System.exit(1);
        }
    }

    private static void sweep(String profile, long first, long count, long faultMillis) {
        List<Long> failing = new ArrayList<>();
        long started = System.nanoTime();
        long events = 0;
        for (long seed = first; seed < first + count; seed++) {
            try {
                events += runSeed(profile, seed, faultMillis, false).events();
            } catch (SimulationFailure failure) {
                failing.add(seed);
                String firstLine = failure.getMessage().lines().findFirst().orElse("");
                System.out.println("FAIL " + firstLine);
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.printf(
                "profile %s: %d seeds from %d, %d failed %s, %d events of passing runs, %d ms%n",
                profile, count, first, failing.size(), failing, events, millis);
        if (!failing.isEmpty()) {
            System.out.println("replay one: " + reproduction(profile, failing.get(0)));
            System.exit(1);
        }
    }
}
