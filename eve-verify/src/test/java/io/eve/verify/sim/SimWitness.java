package io.eve.verify.sim;

import io.eve.protocol.Message;
import io.eve.verify.primarybackup.Witness;
import io.eve.verify.primarybackup.WitnessState;
import io.eve.verify.primarybackup.WitnessStore;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * One incarnation of the simulated witness: the real {@link Witness} machine on the simulated network and
 * clock. With a disk its state survives a crash (the store outlives the incarnation); without one a
 * restarted witness rebuilds it from both replicas' reports.
 */
final class SimWitness {
    private static final long TICK_NANOS = 5_000_000L;

    /** A disk that outlives the witness's incarnations: what was saved last. */
    static final class Disk implements WitnessStore {
        private WitnessState saved;

        @Override
        public Optional<WitnessState> load() {
            return Optional.ofNullable(saved);
        }

        @Override
        public void save(WitnessState state) {
            saved = state;
        }
    }

    private final World sim;
    private final int node;
    private final int incarnation;
    private final Witness witness;
    private boolean alive = true;

    SimWitness(
            World sim,
            int node,
            int incarnation,
            int[] replicas,
            Optional<WitnessStore> disk,
            SplittableRandom random) {
        this.sim = sim;
        this.node = node;
        this.incarnation = incarnation;
        this.witness = new Witness(
                node,
                replicas,
                disk,
                20_000_000L,
                random::nextLong,
                (to, message) -> sim.network().send(node, to, message));
    }

    String name() {
        return "witness " + node + "#" + incarnation;
    }

    void start() {
        witness.start(sim.now());
        scheduleTick();
    }

    private void scheduleTick() {
        sim.queue().after(TICK_NANOS, name() + " tick", () -> {
            if (alive) {
                witness.onTick(sim.now());
                scheduleTick();
            }
        });
    }

    void crash() {
        alive = false;
    }

    boolean alive() {
        return alive;
    }

    Optional<WitnessState> state() {
        return witness.state();
    }

    void onMessage(int from, Message message) {
        if (alive) {
            witness.onMessage(from, message, sim.now());
        }
    }
}
