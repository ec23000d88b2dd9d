package io.eve.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.eve.Replica;
import io.eve.ReplicaClosedException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica's HTTP endpoint on 127.0.0.1: {@code /metrics} in Prometheus' text format and {@code /status} as
 * one JSON object ({@link io.eve.ReplicaStatus#toJson()}); 503 with the reason once the replica is closed or
 * failed. The JDK's HTTP server, one thread; closed with the replica.
 */
final class StatusEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StatusEndpoint.class);

    private final HttpServer server;

    private StatusEndpoint(HttpServer server) {
        this.server = server;
    }

    /** Serves {@code replica} (known only once it is built, hence the supplier) on {@code port}. */
    static StatusEndpoint serve(int port, PrometheusMeterRegistry registry, Supplier<Replica> replica) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
            server.createContext(
                    "/metrics", exchange -> respond(exchange, 200, "text/plain; version=0.0.4", registry.scrape()));
            server.createContext("/status", exchange -> {
                try {
                    respond(
                            exchange,
                            200,
                            "application/json",
                            replica.get().status().toJson());
                } catch (ReplicaClosedException | IllegalStateException e) {
                    respond(exchange, 503, "text/plain", e.getMessage());
                }
            });
            server.start();
            return new StatusEndpoint(server);
        } catch (IOException e) {
            throw new io.eve.config.ConfigException(
                    "cannot serve /metrics and /status on 127.0.0.1:" + port + " (metrics.port + node): " + e);
        }
    }

    private static void respond(HttpExchange exchange, int code, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(code, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        LOG.debug("status endpoint on port {} stopped", server.getAddress().getPort());
    }
}
