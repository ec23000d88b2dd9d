package io.eve.h2;

import static io.eve.h2.Fixtures.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.VersionedState;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class TransferTest {

    /** Rows carried per table, decoded with the receiver's schema. */
    private static Map<String, Integer> rowsIn(StateDelta delta, H2State receiver) {
        Map<String, Integer> out = new TreeMap<>();
        for (DeltaCodec.TableDelta table :
                DeltaCodec.read(delta, receiver.tables()).tables()) {
            out.put(table.table().key(), table.rowCount());
        }
        return out;
    }

    @Test
    void shouldShipOnlyTheChangedBucketsAndReachTheAgreedRoot() throws Exception {
        try (H2State good = Fixtures.newShop(64, 50);
                H2State lagging = Fixtures.newShop(64, 50)) {
            run(good, 1, 0, "UPDATE customer SET name = 'moved' WHERE id = 7");
            run(good, 1, 1, "DELETE FROM line WHERE order_id = 9 AND n = 2");
            Digest root = good.seal(1);
            StateDelta delta = good.deltaSince(0);
            assertThat(rowsIn(delta, lagging))
                    .containsEntry("PUBLIC.ORDERS", 0)
                    // Only the rows sharing a bucket with the changed rows travel, not all 50 or 100.
                    .satisfies(m -> assertThat(m.get("PUBLIC.CUSTOMER")).isBetween(1, 5))
                    .satisfies(m -> assertThat(m.get("PUBLIC.LINE")).isBetween(0, 8));
            ApplyResult result = lagging.apply(delta, 1, root);
            assertThat(result.applied()).as(result.reason()).isTrue();
            assertThat(lagging.sealedSeq()).isEqualTo(1);
            assertThat(lagging.scanRoot()).isEqualTo(root);
            assertThat(Fixtures.rows(lagging, "customer")).isEqualTo(Fixtures.rows(good, "customer"));
            assertThat(Fixtures.rows(lagging, "line")).isEqualTo(Fixtures.rows(good, "line"));
            // The transferred version can be rolled back like any other.
            lagging.rollbackTo(0);
            assertThat(lagging.scanRoot()).isEqualTo(good.rootAt(0));
        }
    }

    /** The batch 2 every replica of the test below runs: deletes (with cascades), an insert, a key change. */
    private static void batchTwo(H2State state) throws Exception {
        run(state, 2, 0, "DELETE FROM customer WHERE id < 12");
        run(state, 2, 1, "INSERT INTO customer VALUES (900, 'new', 1.00, TRUE, DATE '2024-02-02')");
        run(state, 2, 2, "UPDATE line SET n = 7 WHERE order_id = 20 AND n = 1");
        run(state, 2, 3, "UPDATE orders SET total = -1 WHERE id = 30");
    }

    /**
     * docs/quorum.md, "State transfer": a replica serves the version the verifiers agreed on even when it
     * executed further. The delta of the older kept version carries that version's rows (the later batches'
     * row changes undone in memory), installs on a lagging and on an empty replica, and leaves the server's
     * database and versions as they were.
     */
    @Test
    void shouldServeAnOlderKeptVersionAndLeaveTheServerAsItWas() throws Exception {
        try (H2State good = Fixtures.newShop(64, 40);
                H2State lagging = Fixtures.newShop(64, 40);
                H2State control = Fixtures.newShop(64, 40);
                H2State empty = Fixtures.newState(64)) {
            for (H2State state : List.of(good, control)) {
                run(state, 1, 0, "UPDATE customer SET name = 'one' WHERE id = 7");
                run(state, 1, 1, "UPDATE line SET qty = 9 WHERE order_id = 20");
            }
            Digest one = good.seal(1);
            assertThat(control.seal(1)).isEqualTo(one);
            batchTwo(good);
            Digest two = good.seal(2);
            List<String> customersAtTwo = Fixtures.rows(good, "customer");
            List<String> linesAtTwo = Fixtures.rows(good, "line");

            StateDelta delta = good.deltaSince(0, 1);
            assertThat(delta.baseSeq()).isZero();
            assertThat(delta.targetSeq()).isEqualTo(1);
            ApplyResult result = lagging.apply(delta, 1, one);
            assertThat(result.applied()).as(result.reason()).isTrue();
            assertThat(lagging.scanRoot()).isEqualTo(one);
            for (String table : List.of("customer", "orders", "line")) {
                assertThat(Fixtures.rows(lagging, table)).as(table).isEqualTo(Fixtures.rows(control, table));
            }
            ApplyResult full = empty.apply(good.deltaSince(VersionedState.NOTHING, 1), 1, one);
            assertThat(full.applied()).as(full.reason()).isTrue();
            assertThat(empty.scanRoot()).isEqualTo(one);

            // The server is untouched: its rows, its root, and its way back to version 1.
            assertThat(good.sealedSeq()).isEqualTo(2);
            assertThat(good.scanRoot()).isEqualTo(two);
            assertThat(Fixtures.rows(good, "customer")).isEqualTo(customersAtTwo);
            assertThat(Fixtures.rows(good, "line")).isEqualTo(linesAtTwo);
            // Both receivers run batch 2 to the server's root.
            batchTwo(lagging);
            assertThat(lagging.seal(2)).isEqualTo(two);
            batchTwo(empty);
            assertThat(empty.seal(2)).isEqualTo(two);
            good.rollbackTo(1);
            assertThat(good.scanRoot()).isEqualTo(one);
        }
    }

    @Test
    void shouldRefuseADeltaToAVersionNotKept() throws Exception {
        try (H2State good = Fixtures.newShop(16, 10)) {
            run(good, 1, 0, "UPDATE customer SET name = 'one' WHERE id = 7");
            good.seal(1);
            good.markStable(1);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> good.deltaSince(0, 0))
                    .isInstanceOf(io.eve.merkle.StateException.class)
                    .hasMessageContaining("no delta to version 0");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> good.deltaSince(1, 0))
                    .isInstanceOf(io.eve.merkle.StateException.class);
        }
    }

    @Test
    void shouldInstallAFullTransferIntoAnEmptyReplica() throws Exception {
        try (H2State good = Fixtures.newShop(32, 30);
                H2State empty = Fixtures.newState(32)) {
            run(good, 1, 0, "DELETE FROM customer WHERE id = 3");
            Digest root = good.seal(1);
            StateDelta full = good.deltaSince(VersionedState.NOTHING);
            ApplyResult result = empty.apply(full, 1, root);
            assertThat(result.applied()).as(result.reason()).isTrue();
            assertThat(empty.scanRoot()).isEqualTo(root);
            assertThat(Fixtures.rows(empty, "orders")).isEqualTo(Fixtures.rows(good, "orders"));
            // The receiver can serve deltas in turn.
            run(empty, 2, 0, "UPDATE orders SET total = 0 WHERE id = 4");
            run(good, 2, 0, "UPDATE orders SET total = 0 WHERE id = 4");
            assertThat(empty.seal(2)).isEqualTo(good.seal(2));
        }
    }

    @Test
    void shouldRepairADivergedBucketMovingOnlyItsRows() throws Exception {
        try (H2State good = Fixtures.newShop(64, 60);
                H2State bad = Fixtures.newShop(64, 60)) {
            run(good, 1, 0, "UPDATE customer SET balance = 1 WHERE id = 12");
            run(bad, 1, 0, "UPDATE customer SET balance = 2 WHERE id = 12"); // a concurrency bug, say
            Digest agreed = good.seal(1);
            assertThat(bad.seal(1)).isNotEqualTo(agreed);

            // Top-down: table roots, then the bucket digests of the tables that differ.
            Map<String, BitSet> differing = new TreeMap<>();
            good.tableRoots().forEach((table, digest) -> {
                if (!bad.tableRoots().get(table).equals(digest)) {
                    List<Digest> mine = good.bucketDigests(table);
                    List<Digest> theirs = bad.bucketDigests(table);
                    BitSet buckets = new BitSet();
                    for (int i = 0; i < mine.size(); i++) {
                        if (!mine.get(i).equals(theirs.get(i))) {
                            buckets.set(i);
                        }
                    }
                    differing.put(table, buckets);
                }
            });
            assertThat(differing).containsOnlyKeys("PUBLIC.CUSTOMER");
            assertThat(differing.get("PUBLIC.CUSTOMER").cardinality()).isEqualTo(1);
            int bucket = differing.get("PUBLIC.CUSTOMER").nextSetBit(0);

            StateDelta repair = good.deltaForBuckets(differing);
            long rowsInBucket = good.table("PUBLIC.CUSTOMER").buckets().rows(bucket);
            assertThat(rowsIn(repair, bad))
                    .containsEntry("PUBLIC.CUSTOMER", (int) rowsInBucket)
                    .containsEntry("PUBLIC.ORDERS", 0)
                    .containsEntry("PUBLIC.LINE", 0);
            assertThat(rowsInBucket).isLessThan(10);

            ApplyResult result = bad.apply(repair, 1, agreed);
            assertThat(result.applied()).as(result.reason()).isTrue();
            assertThat(bad.rootAt(1)).isEqualTo(agreed);
            assertThat(bad.scanRoot()).isEqualTo(agreed);
            assertThat(Fixtures.rows(bad, "customer")).isEqualTo(Fixtures.rows(good, "customer"));
        }
    }

    @Test
    void shouldLeaveTheStateUntouchedWhenTheRootIsWrong() throws Exception {
        try (H2State good = Fixtures.newShop(16, 20);
                H2State other = Fixtures.newShop(16, 20)) {
            run(good, 1, 0, "DELETE FROM customer WHERE id < 5");
            good.seal(1);
            List<String> before = Fixtures.rows(other, "customer");
            Digest wrong = Digest.fromHex("11".repeat(32));
            ApplyResult result = other.apply(good.deltaSince(0), 1, wrong);
            assertThat(result.applied()).isFalse();
            assertThat(result.reason()).contains("expected " + wrong);
            assertUntouched(other, before);
        }
    }

    @Test
    void shouldRejectMalformedAndTruncatedDeltasWithoutChangingState() throws Exception {
        try (H2State good = Fixtures.newShop(16, 20);
                H2State other = Fixtures.newShop(16, 20)) {
            run(good, 1, 0, "UPDATE customer SET name = 'changed'");
            Digest root = good.seal(1);
            byte[] payload = good.deltaSince(0).payload();
            List<String> before = Fixtures.rows(other, "customer");
            for (int cut = 0; cut < payload.length; cut += Math.max(1, payload.length / 40)) {
                ApplyResult result = other.apply(new StateDelta(0, 1, Arrays.copyOf(payload, cut)), 1, root);
                assertThat(result.applied()).isFalse();
                assertThat(result.reason()).startsWith("malformed delta");
            }
            java.util.Random random = new java.util.Random(7);
            for (int i = 0; i < 200; i++) {
                byte[] flipped = payload.clone();
                flipped[random.nextInt(flipped.length)] ^= (byte) (1 + random.nextInt(255));
                ApplyResult result = other.apply(new StateDelta(0, 1, flipped), 1, root);
                assertThat(result.applied()).as("flip %d", i).isFalse();
            }
            assertUntouched(other, before);
            assertThat(other.apply(new StateDelta(0, 1, payload), 1, root).applied())
                    .isTrue();
        }
    }

    private static void assertUntouched(H2State state, List<String> customersBefore) throws Exception {
        assertThat(state.sealedSeq()).isZero();
        assertThat(state.scanRoot()).isEqualTo(state.rootAt(0));
        assertThat(Fixtures.rows(state, "customer")).isEqualTo(customersBefore);
        // Still fully usable: a batch seals to the same root as on a replica that never saw the delta.
        run(state, 1, 0, "UPDATE customer SET vip = TRUE WHERE id = 1");
        assertThat(state.seal(1)).isEqualTo(state.scanRoot());
        state.rollbackTo(0);
    }
}
