package io.eve.samples.cli;

import io.eve.server.launch.Launcher;
import io.eve.server.launch.ProcessDefaults;
import io.eve.server.launch.RdmaCheckCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The command line of the key-value sample: start a replica, talk to a cluster, or run the demo that
 * does both with separate processes.
 */
@Command(
        name = "eve-kv",
        mixinStandardHelpOptions = true,
        version = "eve-kv 0.1.0",
        description = "Eve for the JVM: replicas of the key-value sample or of any application (--app), clients,"
                + " and a multi-process demo.",
        subcommands = {
            ReplicaCommand.class,
            ClientCommand.class,
            DemoCommand.class,
            KeysCommand.class,
            CertsCommand.class
        })
public final class EveKv implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        ProcessDefaults.apply();
        System.exit(commandLine().execute(args));
    }

    /** The command line, reporting a failure as one line (the exception's message) and exit code 1. */
    static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new EveKv());
        // Any application's client command (docs/tutorial.md), as the launcher of eve-server runs it.
        commandLine.addSubcommand("app-client", new Launcher.ClientProcess());
        commandLine.addSubcommand("rdma-check", new RdmaCheckCommand());
        commandLine.setExecutionExceptionHandler((failure, command, parsed) -> {
            command.getErr().println("error: " + failure.getMessage());
            return 1;
        });
        return commandLine;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
