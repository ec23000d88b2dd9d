package io.eve.samples.cli;

import io.eve.Application;
import io.eve.Replica;
import io.eve.server.EveReplica;
import io.eve.server.launch.ApplicationLoader;
import io.eve.server.launch.Launcher;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

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
    @Option(names = "--config", required = true, description = "The cluster configuration file.")
    Path config;

    @Option(names = "--node", required = true, description = "This replica's node id.")
    int node;

    @Option(names = "--join", description = "Restarting: catch up by state transfer before serving.")
    boolean join;

    @Option(
            names = "--app",
            description = "An application class (implements io.eve.Application) to run instead of the key-value"
                    + " store; its settings come from the configuration's app. keys.")
    String app;

    @Option(
            names = "--classpath",
            description = "Jars or class folders holding the --app class (repeatable, or path-separated).")
    List<String> classpath = new ArrayList<>();

    @Option(
            names = "--status-every-ms",
            defaultValue = "2000",
            description = "Status line period (default ${DEFAULT-VALUE}).")
    long statusEveryMillis;

    @Mixin
    StoreOptions store;

    @Override
    public Integer call() throws Exception {
        EveReplica.Builder builder =
                EveReplica.builder().config(config).node(node).join(join);
        if (app != null) {
            ApplicationLoader loader = ApplicationLoader.over(classpath);
            builder.application(cluster -> loader.instance(app, Application.class, cluster));
        } else {
            builder.application(store.build());
        }
        Replica replica = builder.start();
        System.out.printf(
                "node %d: replica of %s (%s)%n",
                node, app != null ? app : "the key-value store", join ? "rejoining" : "starting");
        return Launcher.runUntilStopped(replica, statusEveryMillis, System.out);
    }
}
