package io.eve.bench.suite;

import io.eve.bench.ratis.RatisMode;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The modes the suite knows, by id, in the order they run at each point.
 */
final class Modes {
    static final String UNREPLICATED_SEQUENTIAL = "unreplicated-seq";
    static final String UNREPLICATED = "unreplicated";

    private Modes() {}

    /** Every mode; Ratis keeps its Raft metadata under {@code ratisStorage}. */
    static Map<String, Mode> all(Path ratisStorage) {
        Map<String, Mode> modes = new LinkedHashMap<>();
        for (Mode mode : List.of(
                new UnreplicatedMode(true),
                new UnreplicatedMode(false),
                PrimaryBackupMode.sequentialReplication(),
                PrimaryBackupMode.eve(),
                PrimaryBackupMode.eveWithoutOverlap(),
                PrimaryBackupMode.eveOverNetty(),
                QuorumMode.crash(),
                QuorumMode.crashWithOverlap(),
                QuorumMode.crashWithoutExtraProtection(),
                QuorumMode.crashOverNetty(),
                QuorumMode.bft(),
                QuorumMode.bftUnsigned(),
                QuorumMode.bftOverNetty(),
                new RatisMode(ratisStorage))) {
            modes.put(mode.id(), mode);
        }
        return modes;
    }

    static List<String> ids() {
        return List.copyOf(all(Path.of("unused")).keySet());
    }
}
