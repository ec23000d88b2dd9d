package io.eve.verify.sim;

import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The simulated network. Every message gets a random latency. Between the two replicas the link is FIFO
 * unless the fault profile allows reordering; it may lose or duplicate messages and be cut for a while
 * as the profile allows. Client links lose, duplicate and reorder freely when client faults are on. A
 * message to a crashed replica is lost. Single-threaded; all randomness comes from the run's seed.
 */
final class SimNetwork {
    private final World sim;
    private final SplittableRandom random;
    private final Faults faults;
    private final double dropRate;
    private final double duplicateRate;
    private final double clientDropRate;
    private final Map<Long, Long> lastArrival = new HashMap<>();
    private final Map<Long, Long> cutUntil = new HashMap<>();
    private boolean healed;
    private long slowUntil;
    private int corruptTokens;

    SimNetwork(World sim, SplittableRandom random, Faults faults) {
        this.sim = sim;
        this.random = random;
        this.faults = faults;
        this.dropRate = faults.replicaDropRate() * random.nextDouble();
        this.duplicateRate = faults.replicaDuplicateRate() * random.nextDouble();
        this.clientDropRate = faults.clientFaults() ? 0.1 * random.nextDouble() : 0;
    }

    String describe() {
        return String.format(
                "replica drop %.3f, duplicate %.3f, reorder %s; client drop %.3f",
                dropRate, duplicateRate, faults.replicaReorder(), clientDropRate);
    }

    /** No more faults: links stop losing, duplicating and reordering; cuts end. */
    void heal() {
        healed = true;
        cutUntil.clear();
        slowUntil = 0;
        corruptTokens = 0;
    }

    /** Cuts the link between {@code a} and {@code b}, both ways, for {@code nanos}. */
    void cut(int a, int b, long nanos) {
        long until = sim.now() + nanos;
        cutUntil.put(pair(a, b), until);
        cutUntil.put(pair(b, a), until);
    }

    /**
     * Cuts the link from {@code from} to {@code to} only, for {@code nanos}: an asymmetric partition, where
     * {@code to} no longer hears {@code from} but {@code from} still hears {@code to}.
     */
    void cutOneWay(int from, int to, long nanos) {
        cutUntil.put(pair(from, to), sim.now() + nanos);
    }

    /** Replica messages are slow (but still in order) for {@code nanos}. */
    void slowDown(long nanos) {
        slowUntil = sim.now() + nanos;
    }

    /** The next {@code count} tokens the backup sends are altered on the way. */
    void corruptTokens(int count) {
        corruptTokens += count;
    }

    /** Whether tokens are still to be corrupted: a divergence then would be a second, overlapping fault. */
    boolean corruptingTokens() {
        return corruptTokens > 0;
    }

    void send(int from, int to, Message message) {
        boolean replicaLink = sim.isReplica(from) && sim.isReplica(to);
        if (isCut(from, to)) {
            sim.log("lost (link cut) " + from + "->" + to + " " + message);
            return;
        }
        if (!healed && random.nextDouble() < (replicaLink ? dropRate : clientDropRate)) {
            sim.log("lost " + from + "->" + to + " " + message);
            return;
        }
        if (replicaLink && message instanceof Message.BatchToken token && corruptTokens > 0) {
            corruptTokens--;
            message = corrupt(token);
            sim.onCorruptedToken();
            sim.log("corrupting in flight " + from + "->" + to + " " + message);
        }
        schedule(from, to, message, replicaLink);
        double duplicates = healed ? 0 : replicaLink ? duplicateRate : (faults.clientFaults() ? 0.05 : 0);
        if (random.nextDouble() < duplicates) {
            schedule(from, to, message, replicaLink);
        }
    }

    private static Message corrupt(Message.BatchToken message) {
        Token token = message.token();
        Token altered = Token.of(token.seq(), token.stateRoot(), token.replyDigest(), Digest.ZERO);
        return new Message.BatchToken(message.view(), message.epoch(), altered);
    }

    private void schedule(int from, int to, Message message, boolean replicaLink) {
        long arrival = sim.now() + latency(replicaLink);
        boolean fifo = replicaLink ? !faults.replicaReorder() || healed : !faults.clientFaults() || healed;
        if (fifo) {
            Long last = lastArrival.get(pair(from, to));
            arrival = Math.max(arrival, last == null ? 0 : last);
        }
        lastArrival.put(pair(from, to), arrival);
        Message delivered = message;
        sim.queue().at(arrival, "deliver " + from + "->" + to + " " + message, () -> {
            if (isCut(from, to)) {
                sim.log("lost in flight (link cut) " + from + "->" + to + " " + delivered);
            } else {
                sim.deliver(from, to, delivered);
            }
        });
    }

    private long latency(boolean replicaLink) {
        long base = replicaLink ? 50_000L + random.nextLong(250_000L) : 100_000L + random.nextLong(900_000L);
        if (!healed && replicaLink && sim.now() < slowUntil) {
            base += random.nextLong(sim.failureTimeoutNanos() / 5);
        } else if (!healed && random.nextInt(50) == 0) {
            base += random.nextLong(replicaLink ? 5_000_000L : 20_000_000L);
        }
        return base;
    }

    private boolean isCut(int from, int to) {
        Long until = cutUntil.get(pair(from, to));
        return until != null && sim.now() < until;
    }

    private static long pair(int from, int to) {
        return ((long) from << 32) | (to & 0xffffffffL);
    }
}
