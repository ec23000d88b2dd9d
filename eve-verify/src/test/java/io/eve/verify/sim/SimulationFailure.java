package io.eve.verify.sim;

/** A run broke an invariant: carries the seed, the fault profile and the tail of the event log. */
final class SimulationFailure extends AssertionError {
    private static final long serialVersionUID = 1L;

    final long seed;
    final String profile;

    SimulationFailure(
            long seed,
            String profile,
            Simulation.Settings settings,
            String violation,
            String logTail,
            Throwable cause) {
        super(
                "seed " + seed + " (profile " + profile + "): " + violation + "\n  reproduce: "
                        + SimulationRunner.reproduction(profile, seed, settings) + "\n  last events:\n" + logTail,
                cause);
        this.seed = seed;
        this.profile = profile;
    }
}
