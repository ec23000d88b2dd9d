package io.eve.client;

import io.eve.config.ClusterConfig;
import java.util.List;

/**
 * A command line an application ships for its clients, run by the launcher ({@code ./eve client --app-client
 * CLASS --config F ARGS...}) with a connected {@link EveClient}. The class needs a public constructor without
 * parameters.
 */
@FunctionalInterface
public interface ClientProgram {

    /**
     * Runs the command.
     *
     * @param client connected to the cluster; closed by the launcher afterwards
     * @param cluster the cluster's configuration, with the application's {@code app.} settings
     * @param args the arguments after the launcher's own options
     * @return the process's exit status (0 for success)
     */
    int run(EveClient client, ClusterConfig cluster, List<String> args) throws Exception;
}
