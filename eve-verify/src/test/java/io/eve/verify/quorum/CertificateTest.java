package io.eve.verify.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.execution.Token;
import java.util.List;
import org.junit.jupiter.api.Test;

class CertificateTest {
    static Certificate certificate(long view, Token token) {
        return new Certificate(view, token, List.of());
    }

    static ViewChanges.Checked checked(int origin, Certificate certificate) {
        return new ViewChanges.Checked(origin, null, certificate);
    }

    @Test
    void shouldPreferTheLaterViewOverTheHigherBatch() {
        // crash-lossy seed 5064: a batch prepared in view 0 above the start of view 1 (which every replica
        // rolled back to) must not become the start of view 2; nobody holds its state any more.
        Token start = VerifierTest.token(24, 24, null);
        Certificate laterView = certificate(1, start);
        Certificate higherBatch = certificate(0, VerifierTest.token(25, 25, start));
        assertThat(laterView.isAbove(higherBatch)).isTrue();
        assertThat(higherBatch.isAbove(laterView)).isFalse();
        assertThat(ViewChanges.choose(List.of(checked(2, higherBatch), checked(1, laterView))))
                .isSameAs(laterView);
        assertThat(ViewChanges.choose(List.of(checked(1, laterView), checked(2, higherBatch))))
                .isSameAs(laterView);
    }

    @Test
    void shouldPreferTheHigherBatchWithinOneView() {
        Token start = VerifierTest.token(24, 24, null);
        Certificate lower = certificate(3, start);
        Certificate higher = certificate(3, VerifierTest.token(25, 25, start));
        assertThat(higher.isAbove(lower)).isTrue();
        assertThat(lower.isAbove(higher)).isFalse();
        assertThat(lower.isAbove(null)).isTrue();
        assertThat(ViewChanges.choose(List.of(checked(0, lower), checked(1, higher))))
                .isSameAs(higher);
        assertThat(ViewChanges.choose(List.of())).isNull();
    }
}
