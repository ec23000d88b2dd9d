package io.eve.verify.history;

/**
 * A sequential specification: the state an object starts in and what one operation does to it.
 *
 * @param <S> states; must implement {@code equals} and {@code hashCode} (the checker memoizes on them)
 * @param <I> inputs
 * @param <O> outputs
 */
public interface Model<S, I, O> {
    S initial();

    /**
     * The state after applying {@code input} in {@code state}, if that application can produce
     * {@code output}; {@code null} if it cannot. A pending operation ({@code output == null}) can produce
     * any output.
     */
    S step(S state, I input, O output);
}
