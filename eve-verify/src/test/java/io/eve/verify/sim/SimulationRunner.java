package io.eve.verify.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs simulations from the command line (docs/simulation.md): a range of seeds under one fault profile,
 * printing each failing seed and a summary, or one seed with its full event log.
 *
 * <pre>
 *   --profile reliable|lossy|fast-restart|unordered|clock-jump|asymmetric   primary-backup (default reliable)
 *             witness|long-faults|long-faults-no-witness|late-start|late-start-no-witness   fenced (or not)
 *             pair-restart|pair-restart-no-witness   both replicas restart from their disks at once
 *             crash|crash-lossy|bft|bft-lossy|bft-forge  the quorum protocol
 *             bft-forge-evidence   a Byzantine verifier forges the others' signed evidence and responses
 *             bft-forge-joiners    the same, while correct processes restart and rejoin (decision 0036)
 *             crash-rejoin|bft-rejoin    restarts on a healthy cluster, back in service without a view change
 *             crash-restart-all|bft-restart-all   durable processes; the whole cluster crashes and restarts
 *             crash-rejoin-failover|bft-rejoin-failover   two processes restart and rejoin, then the primary crashes
 *   --seeds N        how many seeds, from --first (default 1) on
 *   --first S        the first seed
 *   --seed S         run only seed S and print every event
 *   --fault-ms M     how long faults are injected per run (default 1500)
 *   --register-clients N   clients sharing registers, checked for linearizability (default 3)
 *   --per-seed       also print each seed's operations checked and requests abandoned
 *   --stale-gets     a deliberately broken application (gets answer the value before the last write)
 *   --pipelined on|off   the quorum profiles with agreement.pipelined on or off (default: the product's default)
 * </pre>
 */
public final class SimulationRunner {
    static final long DEFAULT_FAULT_MILLIS = 1_500;
    static final int CLIENTS = 3;
    static final int REGISTER_CLIENTS = 3;
    /** The product's default for {@code agreement.pipelined} (ClusterConfig). */
    static final boolean DEFAULT_PIPELINED = false;

    private SimulationRunner() {}

    /** The command that replays one seed with its full event log (with the settings that differ from the defaults). */
    static String reproduction(String profile, long seed, Simulation.Settings settings) {
        StringBuilder command = new StringBuilder("./simulate --profile " + profile + " --seed " + seed);
        long faultMillis = settings.faultPhaseNanos() / Simulation.MS;
        if (faultMillis != DEFAULT_FAULT_MILLIS) {
            command.append(" --fault-ms ").append(faultMillis);
        }
        if (settings.registerClients() != REGISTER_CLIENTS) {
            command.append(" --register-clients ").append(settings.registerClients());
        }
        if (settings.staleGets()) {
            command.append(" --stale-gets");
        }
        if (settings.pipelinedAgreement() != DEFAULT_PIPELINED) {
            command.append(" --pipelined ").append(settings.pipelinedAgreement() ? "on" : "off");
        }
        return command.toString();
    }

    /** The default clients: three with a counter each, three sharing registers. */
    static Simulation.Settings settings(long faultMillis, boolean verbose) {
        return new Simulation.Settings(
                faultMillis * Simulation.MS, CLIENTS, REGISTER_CLIENTS, verbose, false, DEFAULT_PIPELINED);
    }

    /** Runs one seed with the default clients; a broken invariant throws {@link SimulationFailure}. */
    static Simulation.Outcome runSeed(String profile, long seed, long faultMillis, boolean verbose) {
        return run(profile, seed, settings(faultMillis, verbose));
    }

    /** Runs one seed; a broken invariant throws {@link SimulationFailure}. */
    static Simulation.Outcome run(String profile, long seed, Simulation.Settings settings) {
        quietProtocolLogs();
        if (isQuorumProfile(profile)) {
            return new QuorumSimulation(seed, profile, settings).run();
        }
        return new Simulation(seed, profile, settings).run();
    }

    /** The quorum protocol's profiles (Eve §6.1): crash (u = 1, r = 0) and bft (u = r = 1), each also lossy. */
    static boolean isQuorumProfile(String profile) {
        return List.of(
                        "crash",
                        "crash-lossy",
                        "crash-asymmetric",
                        "crash-unordered",
                        "bft",
                        "bft-lossy",
                        "bft-asymmetric",
                        "bft-unordered",
                        "bft-forge",
                        "bft-forge-evidence",
                        "bft-forge-joiners",
                        "crash-epm",
                        "crash-epm-off",
                        "crash-rejoin",
                        "bft-rejoin",
                        "crash-epm-stall",
                        "crash-restart-all",
                        "bft-restart-all",
                        "crash-rejoin-failover",
                        "bft-rejoin-failover",
                        "crash-u2",
                        "crash-u2-rejoin",
                        "crash-u2-amnesia",
                        "bft-u2",
                        "bft-u2-rejoin")
                .contains(profile);
    }

    /**
     * Rollbacks and takeovers are logged at WARN; hundreds of runs would drown the report in them. A level set
     * on the command line ({@code -Dorg.slf4j.simpleLogger.log.io.eve=info}, to replay one seed) is kept.
     */
    static void quietProtocolLogs() {
        if (System.getProperty("org.slf4j.simpleLogger.log.io.eve") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.io.eve", "error");
        }
    }

    public static void main(String[] args) {
        String profile = "reliable";
        long first = 1;
        long count = 100;
        long faultMillis = DEFAULT_FAULT_MILLIS;
        int registerClients = REGISTER_CLIENTS;
        boolean staleGets = false;
        boolean pipelined = DEFAULT_PIPELINED;
        boolean perSeed = false;
        Long single = null;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : "";
            switch (args[i]) {
                case "--profile" -> profile = value;
                case "--seeds" -> count = Long.parseLong(value);
                case "--first" -> first = Long.parseLong(value);
                case "--seed" -> single = Long.parseLong(value);
                case "--fault-ms" -> faultMillis = Long.parseLong(value);
                case "--register-clients" -> registerClients = Integer.parseInt(value);
                case "--pipelined" -> pipelined = onOrOff(value);
                case "--per-seed" -> {
                    perSeed = true;
                    i--; // a flag without a value
                }
                case "--stale-gets" -> {
                    staleGets = true;
                    i--; // a flag without a value
                }
                default ->
                    throw new IllegalArgumentException("unknown argument '" + args[i]
                            + "'; expected --profile, --seeds, --first, --seed, --fault-ms, --register-clients,"
                            + " --pipelined, --per-seed or --stale-gets");
            }
            i++;
        }
        if (!isQuorumProfile(profile)) {
            Faults.named(profile);
        }
        Simulation.Settings settings = settings(faultMillis, single != null)
                .withRegisterClients(registerClients)
                .withPipelinedAgreement(pipelined);
        if (staleGets) {
            settings = settings.withStaleGets();
        }
        if (single != null) {
            replay(profile, single, settings);
            return;
        }
        sweep(profile, first, count, settings, perSeed);
    }

    private static boolean onOrOff(String value) {
        return switch (value) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("--pipelined takes on or off, not '" + value + "'");
        };
    }

    private static void replay(String profile, long seed, Simulation.Settings settings) {
        try {
            Simulation.Outcome outcome = run(profile, seed, settings);
            System.out.println("seed " + seed + " passed: " + outcome);
        } catch (SimulationFailure failure) {
            System.out.println(failure.getMessage());
            System.exit(1);
        }
    }

    private static void sweep(String profile, long first, long count, Simulation.Settings settings, boolean perSeed) {
        List<Long> failing = new ArrayList<>();
        long started = System.nanoTime();
        long events = 0;
        long checked = 0;
        long abandoned = 0;
        for (long seed = first; seed < first + count; seed++) {
            try {
                Simulation.Outcome outcome = run(profile, seed, settings);
                events += outcome.events();
                checked += outcome.checked();
                abandoned += outcome.abandoned();
                if (perSeed) {
                    System.out.printf(
                            "seed %d: %d operations checked, %d requests abandoned%n",
                            seed, outcome.checked(), outcome.abandoned());
                }
            } catch (SimulationFailure failure) {
                failing.add(seed);
                String firstLine = failure.getMessage().lines().findFirst().orElse("");
                System.out.println("FAIL " + firstLine);
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.printf(
                "profile %s: %d seeds from %d, %d failed %s; passing runs: %d events, %d operations checked for"
                        + " linearizability (%d requests abandoned), %d ms%n",
                profile, count, first, failing.size(), failing, events, checked, abandoned, millis);
        if (!failing.isEmpty()) {
            System.out.println("replay one: " + reproduction(profile, failing.get(0), settings));
            System.exit(1);
        }
    }
}
