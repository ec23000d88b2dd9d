package io.eve.execution;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;
import io.eve.mixer.ConflictKeys;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * A test application of separate objects, so that batches can overlap: "set:i:v" writes v to cell i and
 * returns the old value, "copy:i:j" copies cell j into cell i; "hidden:i:v:k" declares key k but writes
 * cell i (a conflict the keys miss); "fail:i:j:v" writes v to cells i and j, then throws, and "refuse:i:j:v"
 * throws the same exception without writing (what a failed request must look like afterwards). Each
 * request first sleeps {@code workMillis}; one whose value is "slow" sleeps {@code slowMillis} more.
 */
final class TestCells implements Application {
    @Replicated(name = "test.Cell")
    static final class Cell extends StateObject {
        String value = "";
    }

    @Replicated(name = "test.Cells")
    static final class Cells extends StateObject {
        Cell[] cells;
    }

    final ObjectGraphState state;
    volatile long workMillis;
    volatile long slowMillis;

    TestCells(int size) {
        state = ObjectGraphState.builder()
                .manualTracking(true) // unenhanced classes with an array: the requests call modify
                .register(Cells.class, Cell.class)
                .build();
        Cells cells = new Cells();
        cells.cells = new Cell[size];
        for (int i = 0; i < size; i++) {
            cells.cells[i] = new Cell();
        }
        state.setRoot("cells", cells);
    }

    static byte[] text(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    private Cell cell(String index) {
        return state.root("cells", Cells.class).cells[Integer.parseInt(index)];
    }

    @Override
    public VersionedState state() {
        return state;
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        String[] parts = new String(payload, StandardCharsets.UTF_8).split(":");
        return switch (parts[0]) {
            case "copy" -> ConflictKeys.of(Set.of(parts[2]), Set.of(parts[1]));
            case "hidden" -> ConflictKeys.writing(parts[3]);
            case "fail", "refuse" -> ConflictKeys.writing(parts[1], parts[2]);
            default -> ConflictKeys.writing(parts[1]);
        };
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) throws Exception {
        String[] parts = new String(payload, StandardCharsets.UTF_8).split(":");
        if (workMillis > 0) {
            Thread.sleep(workMillis);
        }
        if (parts[2].equals("slow")) {
            Thread.sleep(slowMillis);
        }
        if (parts[0].equals("fail") || parts[0].equals("refuse")) {
            return failAfterWrites(parts[0].equals("fail"), parts[1], parts[2], parts[3]);
        }
        Cell target = cell(parts[1]);
        String old = target.value;
        state.modify(target);
        target.value = switch (parts[0]) {
            case "copy" -> cell(parts[2]).value;
            default -> parts[2] + "@" + context.batchSeq();
        };
        return text(old);
    }

    private byte[] failAfterWrites(boolean write, String first, String second, String value) {
        if (write) {
            for (String index : new String[] {first, second}) {
                Cell target = cell(index);
                state.modify(target);
                target.value = value + "!";
            }
        }
        throw new IllegalStateException("cells " + first + " and " + second + " refused " + value);
    }
}
