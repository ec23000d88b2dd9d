package io.eve.merkle.tree;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Runs the iterations {@code 0..count-1} of a loop on the calling thread and on up to the pool's
 * parallelism in helpers, which take iterations from a shared counter. The caller works too instead of
 * waiting, so a pool of one thread on two cores still gives two workers. Returns when every iteration is
 * done; the first exception of any iteration is rethrown.
 */
public final class ParallelLoop {
    private ParallelLoop() {}

    public static void run(ForkJoinPool pool, int count, IntConsumer body) {
        int helpers = pool == null ? 0 : Math.min(pool.getParallelism(), count - 1);
        if (helpers <= 0) {
            for (int i = 0; i < count; i++) {
                body.accept(i);
            }
            return;
        }
        AtomicInteger next = new AtomicInteger();
        Runnable worker = () -> {
            for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                body.accept(i);
            }
        };
        ForkJoinTask<?>[] tasks = new ForkJoinTask<?>[helpers];
        for (int h = 0; h < helpers; h++) {
            tasks[h] = pool.submit(worker);
        }
        RuntimeException failure = null;
        try {
            worker.run();
        } catch (RuntimeException e) {
            failure = e;
            next.set(count);
        }
        for (ForkJoinTask<?> task : tasks) {
            try {
                task.join();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
