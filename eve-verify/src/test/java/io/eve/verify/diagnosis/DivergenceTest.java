package io.eve.verify.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import io.eve.merkle.ObjectDigest;
import io.eve.protocol.Message.ObjectDigests;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class DivergenceTest {

    private static Digest digest(int fill) {
        byte[] bytes = new byte[Digest.LENGTH];
        java.util.Arrays.fill(bytes, (byte) fill);
        return Digest.of(bytes);
    }

    private static ObjectDigest entry(long id, int fill) {
        return new ObjectDigest(id, "shop.Account", "com.example.Account", digest(fill));
    }

    @Test
    void shouldNameObjectsWithOtherDigestsOrChangedOnOneSideOnly() {
        List<ObjectDigest> here = List.of(entry(0, 1), entry(3, 2), entry(5, 3), entry(9, 4));
        List<ObjectDigest> there = List.of(entry(0, 1), entry(3, 7), entry(7, 3), entry(9, 4));

        Divergence divergence = Divergence.compare(4, here, 0, there, 0);

        assertThat(divergence.differences())
                .extracting(Divergence.Difference::id)
                .containsExactly(3L, 5L, 7L);
        assertThat(divergence.comparedUpTo()).isEmpty();
        String text = divergence.describe("here", "at node 1");
        assertThat(text)
                .isEqualTo("the objects that differ: object 3 (shop.Account, com.example.Account here; shop.Account,"
                        + " com.example.Account at node 1), object 5 (shop.Account, com.example.Account here;"
                        + " unchanged at node 1), object 7 (unchanged here; shop.Account, com.example.Account at"
                        + " node 1)");
    }

    @Test
    void shouldSayWhenNothingDiffersAndNameTheTableAndFreedObjects() {
        assertThat(Divergence.compare(2, List.of(entry(1, 1)), 0, List.of(entry(1, 1)), 0)
                        .describe("here", "at node 1"))
                .isEqualTo("no object differs here and at node 1");
        Divergence freed = Divergence.compare(
                2,
                List.of(new ObjectDigest(0, "", "", digest(1)), new ObjectDigest(4, "a.B", "x.B", Digest.ZERO)),
                0,
                List.of(new ObjectDigest(0, "", "", digest(2))),
                0);
        assertThat(freed.describe("here", "at node 1"))
                .contains("the roots table and id allocator (id 0)", "object 4 (a.B, x.B, freed here; unchanged");
    }

    @Test
    void shouldNameTwentyAndCountTheRest() {
        List<ObjectDigest> here = new ArrayList<>();
        List<ObjectDigest> there = new ArrayList<>();
        for (long id = 1; id <= 25; id++) {
            here.add(entry(id, 1));
            there.add(entry(id, 2));
        }
        String text = Divergence.compare(3, here, 0, there, 0).describe("here", "at node 1");
        assertThat(text).contains("object 20 (").doesNotContain("object 21 (").endsWith(" and 5 more");
    }

    @Test
    void shouldCompareOnlyUpToTheLastIdOfATruncatedReport() {
        List<ObjectDigest> here = List.of(entry(2, 1), entry(6, 1), entry(8, 1));
        List<ObjectDigest> there = List.of(entry(2, 2), entry(5, 1));

        Divergence divergence = Divergence.compare(3, here, 0, there, 40);

        assertThat(divergence.differences())
                .extracting(Divergence.Difference::id)
                .containsExactly(2L, 5L);
        assertThat(divergence.comparedUpTo()).isEqualTo(OptionalLong.of(5));
        assertThat(divergence.describe("here", "at node 1"))
                .endsWith("(compared up to id 5: a report left out the" + " objects above it)");
    }

    @Test
    void shouldKeepTheLastReportPerSenderAndDropItAtACommit() {
        DigestReports reports = new DigestReports();
        reports.onReport(1, new ObjectDigests(2, 0, 7, List.of(), 0));
        reports.onReport(1, new ObjectDigests(2, 0, 8, List.of(entry(3, 1)), 0));
        reports.onReport(2, new ObjectDigests(2, 0, 8, List.of(), 0));

        assertThat(reports.kept()).isEqualTo(2);
        assertThat(reports.of(1, 2, 7)).isEmpty();
        assertThat(reports.of(1, 3, 8)).as("another view").isEmpty();
        assertThat(reports.of(1, 2, 8)).isPresent();
        reports.onCommitted(8);
        assertThat(reports.kept()).isZero();
    }
}
