package io.eve.verify.history;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Decides whether a history of concurrent operations is linearizable with respect to a sequential
 * {@link Model}: whether each operation can be given a point between its invocation and its completion
 * at which it takes effect, so that the results are those of the model run in that order (Herlihy and
 * Wing). The search follows Wing and Gong with Lowe's memoization: operations are tried in the order
 * their invocations allow, and a (set of operations linearized, state) pair already explored is not
 * explored again. Pending operations may take effect at any point after their invocation, or never.
 *
 * <p>Exponential in the worst case, fast on the histories real systems produce; partition independent
 * objects (one key of a key-value store each) and check them separately. Stateless and thread-safe.
 */
public final class LinearizabilityChecker {
    private LinearizabilityChecker() {}

    /** The verdict, with the longest linearizable prefix found when the history is not linearizable. */
    public record Result(boolean linearizable, int operations, int longestPrefix) {}

    public static <S, I, O> Result check(List<Operation<I, O>> history, Model<S, I, O> model) {
        List<Operation<I, O>> operations = new ArrayList<>(history);
        operations.sort(Comparator.comparingLong(Operation::invokedAt));
        int count = operations.size();
        Set<Memo<S>> seen = new HashSet<>();
        BitSet done = new BitSet(count);
        int longest = 0;
        // Depth-first with an explicit stack (one frame per operation linearized, so a long history does
        // not need a deep call stack): any operation not yet linearized whose invocation precedes the
        // earliest completion among the remaining completed operations may go next.
        Deque<Frame<S>> path = new ArrayDeque<>();
        long earliest = earliestCompletion(operations, done);
        if (earliest == NONE) {
            return new Result(true, count, 0);
        }
        seen.add(new Memo<>((BitSet) done.clone(), model.initial()));
        path.push(new Frame<>(model.initial(), earliest));
        while (!path.isEmpty()) {
            Frame<S> frame = path.peek();
            if (frame.chosen >= 0) {
                done.clear(frame.chosen); // that choice led nowhere
                frame.chosen = -1;
            }
            S next = null;
            int i = done.nextClearBit(frame.cursor);
            for (;
                    i < count && operations.get(i).invokedAt() <= frame.earliestCompletion;
                    i = done.nextClearBit(i + 1)) {
                Operation<I, O> operation = operations.get(i);
                next = model.step(frame.state, operation.input(), operation.output());
                if (next != null) {
                    break;
                }
            }
            if (next == null) {
                path.pop();
                continue;
            }
            frame.cursor = i + 1;
            frame.chosen = i;
            done.set(i);
            longest = Math.max(longest, path.size());
            long after = earliestCompletion(operations, done);
            if (after == NONE) {
                return new Result(true, count, longest); // what is left is pending: it may never have taken effect
            }
            if (seen.add(new Memo<>((BitSet) done.clone(), next))) {
                path.push(new Frame<>(next, after));
            }
        }
        return new Result(false, count, longest);
    }

    private static final long NONE = Long.MIN_VALUE;

    private record Memo<S>(BitSet done, S state) {}

    /** A point of the search: the state after the operations linearized so far, and the next choice to try. */
    private static final class Frame<S> {
        final S state;
        final long earliestCompletion;
        int cursor;
        int chosen = -1;

        Frame(S state, long earliestCompletion) {
            this.state = state;
            this.earliestCompletion = earliestCompletion;
        }
    }

    /** The earliest completion among the completed operations not yet linearized; {@link #NONE} if none is left. */
    private static <I, O> long earliestCompletion(List<Operation<I, O>> operations, BitSet done) {
        long earliest = NONE;
        for (int i = done.nextClearBit(0); i < operations.size(); i = done.nextClearBit(i + 1)) {
            Operation<I, O> operation = operations.get(i);
            if (!operation.pending() && (earliest == NONE || operation.completedAt() < earliest)) {
                earliest = operation.completedAt();
            }
        }
        return earliest;
    }
}
