package io.eve.rdma.ring;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.rdma.memory.Placement;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Whatever prefix of each write lands first, and in whatever order the rest follow, no torn entry is seen. */
class TornWritePropertyTest {

    @Property(tries = 60)
    void shouldNeverDeliverATornEntry(
            @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long seed,
            @ForAll @IntRange(min = 0, max = 100) int tearPercent) {
        Random random = new Random(seed);
        RingHarness ring = new RingHarness(640, 120);
        ring.fabric.faults((writer, owner, offset, length) -> {
            if (random.nextInt(100) >= tearPercent) {
                return Placement.NOW;
            }
            return random.nextBoolean() ? Placement.tear(random.nextInt(length + 1)) : Placement.defer();
        });
        long next = 1;
        int sent = 300;
        for (int round = 0; ring.seqs.size() < sent; round++) {
            assertThat(round).as("rounds without finishing").isLessThan(100_000);
            while (next <= sent) {
                byte[] payload = RingHarness.payload(next, random.nextInt(121));
                if (!ring.writer.tryAppend(next, payload, 0, payload.length)) {
                    break;
                }
                next++;
            }
            Poll result = ring.drain();
            assertThat(result).isNotEqualTo(Poll.DELIVERED);
            if (random.nextBoolean()) {
                ring.fabric.releaseDeferred(random);
            } else {
                ring.fabric.releaseDeferred();
            }
            ring.drain();
        }
        for (int i = 0; i < sent; i++) {
            long seq = i + 1;
            assertThat(ring.seqs.get(i)).isEqualTo(seq);
            byte[] payload = ring.payloads.get(i);
            assertThat(payload).isEqualTo(RingHarness.payload(seq, payload.length));
        }
    }
}
