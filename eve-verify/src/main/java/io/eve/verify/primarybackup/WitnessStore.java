package io.eve.verify.primarybackup;

import java.util.Optional;

/** Where a witness keeps its {@link WitnessState} across restarts; called on the witness's protocol thread. */
public interface WitnessStore {
    /** The state saved last, or empty if none was ever saved. A damaged record throws, naming where it is. */
    Optional<WitnessState> load();

    /** Saves {@code state} durably before returning. */
    void save(WitnessState state);
}
