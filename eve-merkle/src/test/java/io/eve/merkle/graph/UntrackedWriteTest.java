package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.Digest;
import io.eve.merkle.UntrackedWriteException;
import io.eve.merkle.graph.manual.ManualAccount;
import org.junit.jupiter.api.Test;

/**
 * Debug mode with manual tracking: a write without {@code modify} is reported at seal with the object's
 * id, class and field, put back, and adopted when the batch runs again, so the state stays exact.
 */
class UntrackedWriteTest {

    private static ObjectGraphState state(boolean debug) {
        ObjectGraphState state =
                ObjectGraphState.builder().manualTracking(true).debug(debug).build();
        state.setRoot("a", new ManualAccount("ann", 100));
        state.setRoot("b", new ManualAccount("bob", 50));
        state.seal(0);
        return state;
    }

    @Test
    void shouldReportPutBackAndAdoptOnTheSecondRun() {
        ObjectGraphState state = state(true);
        ManualAccount a = state.root("a", ManualAccount.class);
        a.depositUntracked(7);
        assertThatThrownBy(() -> state.seal(1))
                .isInstanceOf(UntrackedWriteException.class)
                .hasMessageContaining(
                        "object " + state.idOf(a) + " (test.ManualAccount, " + ManualAccount.class.getName())
                .hasMessageContaining("field(s) [balance]");
        assertThat(a.balance()).isEqualTo(100);
        state.rollbackTo(0);
        assertThat(a.balance()).isEqualTo(100);

        a.depositUntracked(7); // the sequential re-execution writes it again
        Digest adopted = state.seal(1);
        assertThat(a.balance()).isEqualTo(107);

        ObjectGraphState reference = state(false);
        ManualAccount ra = reference.root("a", ManualAccount.class);
        reference.modify(ra);
        ra.depositUntracked(7);
        assertThat(adopted).isEqualTo(reference.seal(1));

        state.rollbackTo(0);
        assertThat(a.balance()).isEqualTo(100);
        assertThat(state.seal(1)).isEqualTo(reference.rootAt(0));
    }
}
