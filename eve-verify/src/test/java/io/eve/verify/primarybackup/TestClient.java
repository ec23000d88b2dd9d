package io.eve.verify.primarybackup;

import io.eve.Reply;
import io.eve.Request;
import io.eve.protocol.Message;
import io.eve.transport.LocalNetwork;
import io.eve.transport.Transport;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A minimal in-process client for cluster tests: sends to the primary it believes in, follows
 * redirects, and resends the same request (same number) to the other replica after a timeout, so
 * exactly-once is exercised across failovers.
 */
final class TestClient implements AutoCloseable {
    private final Transport transport;
    private final int[] replicas;
    private final AtomicLong nextSeq = new AtomicLong(1);
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "test-client-timer");
        thread.setDaemon(true);
        return thread;
    });
    private volatile int primary;

    private record Pending(Request request, CompletableFuture<Reply> future) {}

    TestClient(LocalNetwork network, int id, int... replicas) {
        this.transport = network.join(id);
        this.replicas = replicas.clone();
        this.primary = replicas[0];
        transport.start(this::onMessage);
        timer.scheduleAtFixedRate(this::resendAll, 300, 300, TimeUnit.MILLISECONDS);
    }

    CompletableFuture<Reply> submit(byte[] payload) {
        Request request = new Request(transport.self(), nextSeq.getAndIncrement(), payload);
        CompletableFuture<Reply> future = new CompletableFuture<>();
        pending.put(request.requestSeq(), new Pending(request, future));
        transport.send(primary, new Message.ClientRequest(request));
        return future;
    }

    private void onMessage(int from, Message message) {
        if (message instanceof Message.ClientReply reply) {
            Pending done = pending.remove(reply.reply().requestSeq());
            if (done != null) {
                done.future().complete(reply.reply());
            }
        } else if (message instanceof Message.Redirect redirect) {
            primary = redirect.primary();
            Pending again = pending.get(redirect.requestSeq());
            if (again != null) {
                transport.send(primary, new Message.ClientRequest(again.request()));
            }
        }
    }

    private void resendAll() {
        if (pending.isEmpty()) {
            return;
        }
        primary = primary == replicas[0] ? replicas[1] : replicas[0];
        pending.values().forEach(p -> transport.send(primary, new Message.ClientRequest(p.request())));
    }

    @Override
    public void close() {
        timer.shutdownNow();
        transport.close();
    }
}
