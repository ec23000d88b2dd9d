package io.eve.server.launch;

import io.eve.Replica;
import io.eve.ReplicaClosedException;
import io.eve.ReplicaStatus;
import io.eve.client.ClientProgram;
import io.eve.client.EveClient;
import io.eve.config.ClusterConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code java -cp eve-server.jar:... io.eve.server.launch.Launcher replica|client|rdma-check ...}: runs any
 * application as a replica process, or its client command (docs/cli.md, docs/tutorial.md), or the RDMA
 * self-check (docs/rdma.md).
 */
@Command(
        name = "eve",
        mixinStandardHelpOptions = true,
        description = "Run a replica of any application, or its client command.",
        subcommands = {Launcher.ReplicaProcess.class, Launcher.ClientProcess.class, RdmaCheckCommand.class})
public final class Launcher {

    public static void main(String[] args) {
        ProcessDefaults.apply();
        System.exit(new CommandLine(new Launcher()).execute(args));
    }

    /**
     * Runs {@code replica} until it fails (returns 1) or the process is stopped, printing its status every
     * {@code statusEveryMillis}. A status the replica cannot give in time (its protocol thread busy for
     * seconds on a loaded machine) is reported on its line and the replica runs on: a status line is no
     * reason to stop a replica.
     */
    public static int runUntilStopped(Replica replica, long statusEveryMillis, PrintStream out)
            throws InterruptedException {
        Runtime.getRuntime().addShutdownHook(new Thread(replica::close, "eve-shutdown"));
        return reportUntilClosed(replica, statusEveryMillis, out);
    }

    /** The loop of {@link #runUntilStopped}, without the shutdown hook. */
    static int reportUntilClosed(Replica replica, long statusEveryMillis, PrintStream out) throws InterruptedException {
        while (true) {
            try {
                out.printf("node %d: %s%n", replica.node(), describe(replica.status()));
            } catch (ReplicaClosedException e) {
                out.printf("node %d: stopped: %s%n", replica.node(), e.getMessage());
                return 1;
            } catch (IllegalStateException e) {
                out.printf("node %d: no status this time: %s%n", replica.node(), e.getMessage());
            }
            Thread.sleep(statusEveryMillis); // the status line's period, not synchronisation
        }
    }

    /** One status line. */
    static String describe(ReplicaStatus status) {
        return String.format(
                "%s (%s), view %d, committed %d%s, rollbacks %d, transfers %d, replies %d",
                status.role().name().toLowerCase(java.util.Locale.ROOT),
                status.roles(),
                status.view(),
                status.committedSeq(),
                status.verifiedSeq() >= 0 ? ", verified " + status.verifiedSeq() : "",
                status.rollbacks(),
                status.transfers(),
                status.repliesReleased());
    }

    @Command(
            name = "replica",
            mixinStandardHelpOptions = true,
            description = "Start a replica of an application class (it implements io.eve.Application).")
    public static final class ReplicaProcess implements Callable<Integer> {
        @Mixin
        ReplicaOptions options;

        @Override
        public Integer call() throws Exception {
            return runUntilStopped(options.start(null), options.statusEveryMillis(), System.out);
        }
    }

    @Command(
            name = "client",
            mixinStandardHelpOptions = true,
            description = "Run an application's client command (it implements io.eve.client.ClientProgram).")
    public static final class ClientProcess implements Callable<Integer> {
        @Option(names = "--app-client", required = true, description = "The client command's class name.")
        String program;

        @Option(names = "--classpath", description = "Jars or class folders holding it (repeatable).")
        List<String> classpath = new ArrayList<>();

        @Option(names = "--config", required = true, description = "The cluster configuration file.")
        Path config;

        @Option(names = "--id", description = "This client's id (default: random; clients alive at once differ).")
        Integer id;

        @Parameters(description = "The client command's own arguments.")
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            ClusterConfig cluster = ClusterConfig.load(config);
            ClientProgram command = ApplicationLoader.over(classpath).instance(program, ClientProgram.class, cluster);
            try (EveClient client = id == null ? EveClient.connect(cluster) : EveClient.connect(cluster, id)) {
                return command.run(client, cluster, List.copyOf(args));
            }
        }
    }
}
