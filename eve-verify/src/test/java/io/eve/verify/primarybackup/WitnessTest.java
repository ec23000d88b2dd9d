package io.eve.verify.primarybackup;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import io.eve.protocol.Message.FenceAnswer;
import io.eve.protocol.Message.FenceReport;
import io.eve.protocol.Message.FenceRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WitnessTest {
    private static final int A = 0;
    private static final int B = 1;
    private static final int SELF = 2;

    private final List<Message> sent = new ArrayList<>();
    private final SimpleStore disk = new SimpleStore();

    private static final class SimpleStore implements WitnessStore {
        WitnessState saved;

        @Override
        public Optional<WitnessState> load() {
            return Optional.ofNullable(saved);
        }

        @Override
        public void save(WitnessState state) {
            saved = state;
        }
    }

    private Witness witness(Optional<WitnessStore> store) {
        Witness witness = new Witness(SELF, new int[] {A, B}, store, 10, () -> 77, (to, m) -> sent.add(m));
        witness.start(0);
        return witness;
    }

    private FenceAnswer ask(Witness witness, int from, long view, boolean solo) {
        witness.onMessage(from, new FenceRequest(view, solo, 5), 1);
        return (FenceAnswer) sent.get(sent.size() - 1);
    }

    @Test
    void shouldGrantTheNextViewOnlyWhileNoOtherReplicaHoldsSolo() {
        Witness witness = witness(Optional.of(disk));
        // The primary of view 0 goes on alone; the backup may not take over view 1 meanwhile.
        assertThat(ask(witness, A, 0, true)).isEqualTo(new FenceAnswer(5, 0, true, A));
        assertThat(disk.saved).isEqualTo(new WitnessState(0, true, A));
        assertThat(ask(witness, B, 1, true)).isEqualTo(new FenceAnswer(5, 0, true, A));
        // Asked again, the holder keeps it (idempotent); then gives it back, and the backup may take over.
        assertThat(ask(witness, A, 0, true)).isEqualTo(new FenceAnswer(5, 0, true, A));
        assertThat(ask(witness, A, 0, false)).isEqualTo(new FenceAnswer(5, 0, false, A));
        assertThat(ask(witness, B, 1, true)).isEqualTo(new FenceAnswer(5, 1, true, B));
        // The old primary, refused, learns the newer view.
        assertThat(ask(witness, A, 0, true)).isEqualTo(new FenceAnswer(5, 1, true, B));
        // Only the primary of a view may ask for it, and Pair from another than the holder changes nothing.
        assertThat(ask(witness, A, 3, true)).isEqualTo(new FenceAnswer(5, 1, true, B));
        assertThat(ask(witness, A, 1, false)).isEqualTo(new FenceAnswer(5, 1, true, B));
    }

    @Test
    void shouldLetTheBackupTakeOverFromAPairedPrimary() {
        Witness witness = witness(Optional.of(disk));
        assertThat(ask(witness, B, 1, true)).isEqualTo(new FenceAnswer(5, 1, true, B));
        assertThat(ask(witness, A, 0, true)).isEqualTo(new FenceAnswer(5, 1, true, B));
    }

    @Test
    void shouldKeepAGrantAcrossARestartWithADisk() {
        ask(witness(Optional.of(disk)), A, 0, true);
        Witness restarted = witness(Optional.of(disk));
        assertThat(restarted.state()).contains(new WitnessState(0, true, A));
        assertThat(ask(restarted, B, 1, true)).isEqualTo(new FenceAnswer(5, 0, true, A));
    }

    @Test
    void shouldGrantNothingAfterARestartWithoutADiskUntilBothReplicasReport() {
        Witness witness = witness(Optional.empty());
        assertThat(sent).containsExactly(new Message.FenceProbe(77), new Message.FenceProbe(77));
        sent.clear();
        witness.onMessage(B, new FenceRequest(1, true, 5), 1);
        assertThat(sent).as("no answer while the state is unknown").isEmpty();
        witness.onMessage(A, new FenceReport(0, true, 77), 2);
        witness.onMessage(B, new FenceReport(0, false, 0), 2);
        assertThat(witness.state())
                .as("a report from before the probe does not count")
                .isEmpty();
        witness.onTick(20);
        assertThat(sent).contains(new Message.FenceProbe(77));
        witness.onMessage(B, new FenceReport(0, false, 77), 21);
        assertThat(witness.state()).contains(new WitnessState(0, true, A));
        assertThat(ask(witness, B, 1, true)).isEqualTo(new FenceAnswer(5, 0, true, A));
    }
}
