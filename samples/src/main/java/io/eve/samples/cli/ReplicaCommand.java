package io.eve.samples.cli;

import io.eve.Replica;
import io.eve.server.launch.Launcher;
import io.eve.server.launch.ReplicaOptions;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Runs one replica until the process is stopped, in whatever profile the configuration names: the key-value
 * store, or any application class given with {@code --app} (and {@code --classpath}), through {@link
 * EveReplica}; metrics in Prometheus format on {@code /metrics} and a JSON summary on {@code /status} (port
 * {@code metrics.port + node}), and a status line every few seconds.
 */
@Command(
        name = "replica",
        mixinStandardHelpOptions = true,
        description = "Start a replica of the key-value store, or of the application given with --app.")
final class ReplicaCommand implements Callable<Integer> {
    @Mixin
    ReplicaOptions replica;

    @Mixin
    StoreOptions store;

    @Override
    public Integer call() throws Exception {
        Replica started = replica.start(store::build);
        System.out.printf(
                "node %d: replica of %s (%s)%n",
                replica.node(),
                replica.app() != null ? replica.app() : "the key-value store",
                replica.join() ? "rejoining" : "starting");
        return Launcher.runUntilStopped(started, replica.statusEveryMillis(), System.out);
    }
}
