package io.eve.verify.sim;

import io.eve.Reply;
import io.eve.verify.history.LinearizabilityChecker;
import io.eve.verify.history.Model;
import io.eve.verify.history.Operation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A few keys of {@link SimCounter} that several simulated clients use at once as registers (get, put that
 * answers the value it replaced, add that answers the new value), and the history of what those clients
 * saw: for each operation its invocation and completion on the simulated clock, what it asked and what it
 * got. A client that gives up on a request (during the faults) leaves it pending: it may take effect later
 * or never, and the client goes on as a new logical process. At the end of a run the history is checked
 * with {@link LinearizabilityChecker}, one key at a time (linearizability is compositional, so this is
 * exact): exactly-once per client is the counters' job, this checks what clients see of each other.
 *
 * <p>Single-threaded, like the rest of a run.
 */
final class SharedRegisters {
    static final long FIRST_KEY = 1_000;

    /** A new logical process number per abandoned request: one operation at a time per process. */
    private static final int PROCESS_STRIDE = 1_000;

    private static final int SHOWN_BEFORE = 8;
    private static final int SHOWN_AFTER = 16;

    enum Kind {
        GET,
        PUT,
        ADD
    }

    /** What an operation asked: a get, a put of {@code value}, or an add of {@code value}. */
    record Input(Kind kind, long key, long value) {
        @Override
        public String toString() {
            return kind == Kind.GET ? "get(" + key + ")" : kind.name().toLowerCase() + "(" + key + ", " + value + ")";
        }
    }

    private final int keys;
    private final List<Operation<Input, Long>> history = new ArrayList<>();
    private int abandoned;

    SharedRegisters(int keys) {
        this.keys = keys;
    }

    /** The workload of one client of these registers, its choices drawn from {@code random}. */
    SimWorkload client(int clientId, SplittableRandom random) {
        return new Client(clientId, random);
    }

    /** Adds one operation as a client saw it (the clients do; tests add made-up histories). */
    void record(Operation<Input, Long> operation) {
        history.add(operation);
    }

    /** Operations in the history: completed ones and writes left pending. */
    int operations() {
        return history.size();
    }

    /** Requests the clients gave up on. */
    int abandoned() {
        return abandoned;
    }

    /** One line per key whose history is not linearizable, with the operations around where it breaks. */
    List<String> violations() {
        Map<Long, List<Operation<Input, Long>>> byKey = new TreeMap<>();
        for (Operation<Input, Long> operation : history) {
            byKey.computeIfAbsent(operation.input().key(), k -> new ArrayList<>())
                    .add(operation);
        }
        List<String> violations = new ArrayList<>();
        for (Map.Entry<Long, List<Operation<Input, Long>>> entry : byKey.entrySet()) {
            LinearizabilityChecker.Result result = LinearizabilityChecker.check(entry.getValue(), new Register());
            if (!result.linearizable()) {
                violations.add("key " + entry.getKey() + " is not linearizable: " + result.operations()
                        + " operations, no order fits more than " + result.longestPrefix() + " of them; by invocation"
                        + " (invoked..completed ms, process, operation -> result):\n"
                        + around(entry.getValue(), result.longestPrefix()));
            }
        }
        return violations;
    }

    private static String around(List<Operation<Input, Long>> operations, int position) {
        List<Operation<Input, Long>> sorted = new ArrayList<>(operations);
        sorted.sort(Comparator.comparingLong(Operation::invokedAt));
        StringBuilder text = new StringBuilder();
        int from = Math.max(0, position - SHOWN_BEFORE);
        int to = Math.min(sorted.size(), position + SHOWN_AFTER);
        for (Operation<Input, Long> operation : sorted.subList(from, to)) {
            text.append(String.format(
                    "    %10.3f..%-10s  p%-6d %s -> %s%n",
                    operation.invokedAt() / 1e6,
                    operation.pending() ? "pending" : String.format("%.3f", operation.completedAt() / 1e6),
                    operation.client(),
                    operation.input(),
                    operation.pending() ? "?" : operation.output()));
        }
        return text.toString();
    }

    /** A register holding a long, 0 at first. */
    static final class Register implements Model<Long, Input, Long> {
        @Override
        public Long initial() {
            return 0L;
        }

        @Override
        public Long step(Long state, Input input, Long output) {
            switch (input.kind()) {
                case GET:
                    return output == null || output.equals(state) ? state : null;
                case PUT:
                    return output == null || output.equals(state) ? input.value() : null;
                default:
                    long sum = state + input.value();
                    return output == null || output == sum ? sum : null;
            }
        }
    }

    /** One client: picks a key and an operation per request; values it puts are unique to it. */
    private final class Client implements SimWorkload {
        private final int id;
        private final SplittableRandom random;
        private int process;
        private Input current;
        private long invokedAt;

        Client(int id, SplittableRandom random) {
            this.id = id;
            this.random = random;
            this.process = id;
        }

        @Override
        public byte[] invoke(long seq, long now) {
            long key = FIRST_KEY + random.nextInt(keys);
            int pick = random.nextInt(20);
            invokedAt = now;
            if (pick < 8) {
                current = new Input(Kind.GET, key, 0);
                return SimCounter.get(key);
            } else if (pick < 15) {
                current = new Input(Kind.PUT, key, id * 1_000_000_000L + seq * 1_000);
                return SimCounter.put(key, current.value());
            }
            current = new Input(Kind.ADD, key, 1 + random.nextInt(9));
            return SimCounter.add(key, current.value());
        }

        @Override
        public String onReply(long seq, Reply reply, long now) {
            String text = new String(reply.payload(), StandardCharsets.UTF_8);
            long output;
            try {
                output = Long.parseLong(text);
            } catch (NumberFormatException e) {
                output = Long.MIN_VALUE;
            }
            if (reply.error() || output == Long.MIN_VALUE) {
                return current + " answered " + (reply.error() ? "error " + reply.errorText() : "'" + text + "'")
                        + "; a register operation answers a number";
            }
            history.add(new Operation<>(process, invokedAt, now, current, output));
            return null;
        }

        @Override
        public boolean abandons() {
            return true;
        }

        @Override
        public void onAbandoned(long seq, long now) {
            // A get that never returned constrains nothing; a write may have happened or not.
            if (current.kind() != Kind.GET) {
                history.add(new Operation<>(process, invokedAt, Operation.PENDING, current, null));
            }
            abandoned++;
            process += PROCESS_STRIDE;
        }
    }
}
