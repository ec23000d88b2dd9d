package io.eve.verify.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IncarnationsTest {
    // Other tests of this JVM may draw numbers meanwhile: each number is checked against the one before it.
    @Test
    void shouldFollowTheClockAndStayAboveEveryNumberDrawnBefore() {
        long now = Incarnations.next();
        long later = Incarnations.next(now + 1_000_000);
        assertThat(later).as("the clock a second later").isGreaterThanOrEqualTo(now + 1_000_000);
        long back = Incarnations.next(now);
        assertThat(back).as("the clock went back: still above the last").isGreaterThan(later);
        long same = Incarnations.next(back);
        assertThat(same).as("the same microsecond again").isGreaterThan(back);
        assertThat(Incarnations.next()).isGreaterThan(same);
    }
}
