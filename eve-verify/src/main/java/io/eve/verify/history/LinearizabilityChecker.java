package io.eve.verify.history;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
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
        int[] longest = {0};
        boolean ok = search(operations, model, model.initial(), done, 0, seen, longest);
        return new Result(ok, count, longest[0]);
    }

    private record Memo<S>(BitSet done, S state) {}

    /**
     * Depth-first: any operation not yet linearized whose invocation precedes the earliest completion
     * among the remaining completed operations may go next.
     */
    private static <S, I, O> boolean search(
            List<Operation<I, O>> operations,
            Model<S, I, O> model,
            S state,
            BitSet done,
            int linearized,
            Set<Memo<S>> seen,
            int[] longest) {
        longest[0] = Math.max(longest[0], linearized);
        long earliestCompletion = Long.MAX_VALUE;
        boolean remainingCompleted = false;
        for (int i = done.nextClearBit(0); i < operations.size(); i = done.nextClearBit(i + 1)) {
            Operation<I, O> operation = operations.get(i);
            if (!operation.pending()) {
                remainingCompleted = true;
                earliestCompletion = Math.min(earliestCompletion, operation.completedAt());
            }
        }
        if (!remainingCompleted) {
            return true; // what is left is pending: it may never have taken effect
        }
        if (!seen.add(new Memo<>((BitSet) done.clone(), state))) {
            return false;
        }
        for (int i = done.nextClearBit(0); i < operations.size(); i = done.nextClearBit(i + 1)) {
            Operation<I, O> operation = operations.get(i);
            if (operation.invokedAt() > earliestCompletion) {
                break; // sorted by invocation: nothing later may go before that completion
            }
            S next = model.step(state, operation.input(), operation.output());
            if (next == null) {
                continue;
            }
            done.set(i);
            if (search(operations, model, next, done, linearized + 1, seen, longest)) {
                return true;
            }
            done.clear(i);
        }
        return false;
    }
}
