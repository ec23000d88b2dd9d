package io.eve.server.launch;

import io.eve.Application;
import io.eve.Replica;
import io.eve.server.EveReplica;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options of a replica process, as a picocli mixin: the configuration, the node, {@code --join}, the
 * application class and where to load it from, and the status line's period. Shared by the launcher and
 * the samples' command line.
 */
public final class ReplicaOptions {
    @Spec(Spec.Target.MIXEE)
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--config", required = true, description = "The cluster configuration file.")
    Path config;

    @Option(names = "--node", required = true, description = "This replica's node id.")
    int node;

    @Option(names = "--join", description = "Restarting: catch up from the other replicas before serving.")
    boolean join;

    @Option(
            names = "--app",
            description = "The application class (implements io.eve.Application; a public constructor taking the"
                    + " ClusterConfig, for its app. settings, or taking nothing).")
    String app;

    @Option(
            names = "--classpath",
            description = "Jars or class folders holding the application (repeatable, or path-separated).")
    List<String> classpath = new ArrayList<>();

    @Option(
            names = "--status-every-ms",
            defaultValue = "2000",
            description = "Status line period (default ${DEFAULT-VALUE}).")
    long statusEveryMillis;

    /** The node id given. */
    public int node() {
        return node;
    }

    /** Whether the replica restarts and rejoins. */
    public boolean join() {
        return join;
    }

    /** The application class named with {@code --app}, or null. */
    public String app() {
        return app;
    }

    /** The status line's period. */
    public long statusEveryMillis() {
        return statusEveryMillis;
    }

    /**
     * Starts the replica: the {@code --app} class, or {@code fallback}'s application when none was named
     * (made only then).
     *
     * @param fallback the application without {@code --app}, or null to require {@code --app}
     */
    public Replica start(java.util.function.Supplier<Application> fallback) {
        EveReplica.Builder builder =
                EveReplica.builder().config(config).node(node).join(join);
        if (app != null) {
            ApplicationLoader loader = ApplicationLoader.over(classpath);
            builder.application(cluster -> loader.instance(app, Application.class, cluster));
        } else if (fallback != null) {
            builder.application(cluster -> fallback.get());
        } else {
            throw new ParameterException(spec.commandLine(), "Missing required option: '--app=<app>'");
        }
        return builder.start();
    }
}
