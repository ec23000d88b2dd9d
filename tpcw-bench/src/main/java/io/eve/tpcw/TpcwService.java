package io.eve.tpcw;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.config.ClusterConfig;
import io.eve.merkle.VersionedState;
import io.eve.mixer.ConflictKeys;
import java.util.UUID;

/**
 * TPC-W on H2 as a service the launcher can run ({@code --app io.eve.tpcw.TpcwService}): builds this
 * replica's in-memory eve-h2 database from the cluster configuration's {@code app.} settings
 * ({@link TpcwSettings}), populated from the seed and sealed at version 0, so every replica starts from the
 * same state, and serves it as a {@link TpcwApplication}. Thread-safe, as {@link TpcwApplication} is.
 */
public final class TpcwService implements Application {
    private final TpcwApplication application;

    /**
     * Populates the database (seconds at the default scale) before it returns.
     *
     * @throws Exception if the database cannot be built or populated
     */
    public TpcwService(ClusterConfig cluster) throws Exception {
        TpcwSettings settings = TpcwSettings.from(cluster);
        String url = "jdbc:h2:mem:tpcw-service-" + UUID.randomUUID();
        this.application = new TpcwApplication(
                TpcwDatabase.newState(url, settings.scale(), settings.seed()),
                settings.scale().items(),
                settings.cartPartitions());
    }

    @Override
    public VersionedState state() {
        return application.state();
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        return application.conflictKeys(payload);
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) throws Exception {
        return application.execute(payload, context);
    }
}
