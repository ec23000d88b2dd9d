package io.eve.mixer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchKeysTest {
    @Test
    void shouldRejectNegativeSeq() {
        assertThatThrownBy(() -> new BatchKeys(-1, 0, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a batch seq is non-negative, got -1");
    }

    @Test
    void shouldNameTheRequestWhoseKeysAreNull() {
        List<ConflictKeys> requests = Arrays.asList(ConflictKeys.none(), null);

        assertThatThrownBy(() -> new BatchKeys(3, 0, requests))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("conflict keys of request 1 must not be null");
    }

    @Test
    void shouldCopyTheRequestList() {
        List<ConflictKeys> requests = new ArrayList<>(List.of(ConflictKeys.none()));
        BatchKeys batch = new BatchKeys(0, 0, requests);

        requests.add(ConflictKeys.writing("a"));

        assertThat(batch.size()).isEqualTo(1);
    }

    @Test
    void shouldKeepSeqAndSeedWhenKeysAreReplaced() {
        BatchKeys batch = new BatchKeys(7, 99, List.of(ConflictKeys.none()));

        BatchKeys replaced = batch.withRequests(List.of(ConflictKeys.writing("a")));

        assertThat(replaced).isEqualTo(new BatchKeys(7, 99, List.of(ConflictKeys.writing("a"))));
    }

    @Test
    void shouldRejectReplacementKeysOfAnotherLength() {
        BatchKeys batch = new BatchKeys(7, 99, List.of(ConflictKeys.none()));

        assertThatThrownBy(() -> batch.withRequests(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("batch 7 has 1 requests, got keys for 0");
    }
}
