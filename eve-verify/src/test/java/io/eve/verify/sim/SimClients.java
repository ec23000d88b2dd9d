package io.eve.verify.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/**
 * The clients of one run: {@code settings.clients()} with a counter each (exactly-once), then
 * {@code settings.registerClients()} sharing the keys of {@link SharedRegisters} (linearizability across
 * clients). Client {@code i} has id {@code Simulation.CLIENT_BASE + i}. Single-threaded.
 */
final class SimClients {
    static final int SHARED_KEYS = 2;

    private final List<SimClient> clients = new ArrayList<>();
    private final SharedRegisters registers = new SharedRegisters(SHARED_KEYS);

    /**
     * Creates the clients, each drawing its choices from its own split of {@code root}, counter clients
     * first: without register clients, the splits are those the simulator always made, so old seeds replay
     * as before.
     *
     * @param matches replies that must agree before a client accepts one ({@code r + 1}); 0 for
     *     primary-backup, where one reply from the replica that releases it is accepted
     */
    SimClients(World sim, Simulation.Settings settings, int[] replicas, SplittableRandom root, int matches) {
        for (int i = 0; i < settings.clients() + settings.registerClients(); i++) {
            int id = Simulation.CLIENT_BASE + i;
            SplittableRandom random = root.split();
            SimWorkload workload =
                    i < settings.clients() ? new CounterWorkload(i) : registers.client(id, random.split());
            clients.add(new SimClient(sim, id, workload, replicas, random, matches));
        }
    }

    void start() {
        clients.forEach(SimClient::start);
    }

    /** The client with node id {@code id}. */
    SimClient byId(int id) {
        return clients.get(id - Simulation.CLIENT_BASE);
    }

    int size() {
        return clients.size();
    }

    /** The faults stopped: every client finishes its request in flight and sends {@code more}. */
    void onHeal(int more) {
        clients.forEach(client -> client.onHeal(more));
    }

    boolean done() {
        return clients.stream().allMatch(SimClient::done);
    }

    long acknowledged() {
        return clients.stream().mapToLong(SimClient::acknowledged).sum();
    }

    /** Operations the linearizability check covers. */
    long checked() {
        return registers.operations();
    }

    /** Requests the register clients gave up on. */
    long abandoned() {
        return registers.abandoned();
    }

    /** The requests still waiting for a reply, for a liveness report. */
    String pending() {
        StringBuilder report = new StringBuilder();
        for (SimClient client : clients) {
            String pending = client.pending();
            if (pending != null) {
                report.append(pending).append("; ");
            }
        }
        return report.toString();
    }

    /**
     * Invariant 4 at the end, at one replica: each client's counter (read with {@code counterAt}) holds
     * exactly its acknowledged requests. The first mismatch, or {@code null}.
     */
    String counterMismatch(String replica, LongUnaryOperator counterAt) {
        for (SimClient client : clients) {
            if (client.workload instanceof CounterWorkload counter) {
                long value = counterAt.applyAsLong(counter.key);
                if (value != client.acknowledged()) {
                    return "exactly-once broken at the end: counter " + counter.key + " is " + value + " at " + replica
                            + ", but client " + client.id + " got " + client.acknowledged()
                            + " requests acknowledged";
                }
            }
        }
        return null;
    }

    /** The shared registers' history checked for linearizability: a description of each violation. */
    List<String> linearizabilityViolations() {
        return registers.violations();
    }
}
