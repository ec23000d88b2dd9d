package io.eve.samples.statedemo;

import io.eve.merkle.Digest;
import io.eve.merkle.graph.ObjectGraphState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * One replica of the demo: an {@link ObjectGraphState} holding a {@link Store}, executing the requests of a
 * batch on a thread pool, as an Eve execution replica would (without the network: that is the next issue).
 */
final class Replica {
    final String name;
    final ObjectGraphState state;
    private final int valueSize;

    Replica(String name, int objects, int valueSize) {
        this.name = name;
        this.valueSize = valueSize;
        this.state = ObjectGraphState.builder()
                .register(Store.class, Store.Stats.class)
                .build();
        state.setRoot("store", Store.create(objects, valueSize));
        state.seal(0);
    }

    Store store() {
        return state.root("store", Store.class);
    }

    /** Runs batch {@code seq}: request i writes object {@code keys[i]}, all requests at once on {@code pool}. */
    Digest execute(long seq, long[] keys, ExecutorService pool, boolean corrupt) throws Exception {
        Store store = store();
        List<Future<?>> requests = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            int request = i;
            requests.add(pool.submit(() -> {
                byte[] value = Values.written(seq, request, valueSize);
                if (corrupt && request == 0) {
                    value[0] ^= 1;
                }
                store.objects.put(keys[request], value);
            }));
        }
        for (Future<?> request : requests) {
            request.get();
        }
        store.stats.writes += keys.length;
        store.stats.bytesWritten += (long) keys.length * valueSize;
        return state.seal(seq);
    }
}
