package io.eve.execution;

import io.eve.Application;
import io.eve.ApplicationException;
import io.eve.ExecutionContext;
import io.eve.RequestCodec;
import io.eve.TypedApplication;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.mixer.ConflictKeys;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link TestCells} as a typed application: the same "set:i:v" and "copy:i:j" texts decode into
 * {@link Command}s, and the codec counts its decodings. "get:i" reads cell i, "refuse:i" throws an
 * {@link ApplicationException} with code "refused" and the cell as detail, "crash:i" an
 * {@link IllegalArgumentException}. Each request first sleeps {@code workMillis}.
 */
final class TypedCells implements TypedApplication<TypedCells.Command, String> {
    record Command(String operation, int target, String value) {}

    final ObjectGraphState state;
    final AtomicInteger decodes = new AtomicInteger();
    volatile long workMillis;

    TypedCells(int size) {
        state = ObjectGraphState.builder()
                .manualTracking(true) // unenhanced classes with an array: the requests call modify
                .register(TestCells.Cells.class, TestCells.Cell.class)
                .build();
        TestCells.Cells cells = new TestCells.Cells();
        cells.cells = new TestCells.Cell[size];
        for (int i = 0; i < size; i++) {
            cells.cells[i] = new TestCells.Cell();
        }
        state.setRoot("cells", cells);
    }

    Application application() {
        return Application.typed(codec(), this);
    }

    RequestCodec<Command, String> codec() {
        return RequestCodec.of(
                command -> TestCells.text(command.operation() + ":" + command.target() + ":" + command.value()),
                this::decode,
                TestCells::text,
                payload -> new String(payload, StandardCharsets.UTF_8));
    }

    private Command decode(byte[] payload) {
        decodes.incrementAndGet();
        String[] parts = new String(payload, StandardCharsets.UTF_8).split(":");
        if (!Set.of("set", "copy", "get", "refuse", "crash").contains(parts[0])) {
            throw new IllegalArgumentException("unknown operation '" + parts[0] + "'");
        }
        return new Command(parts[0], Integer.parseInt(parts[1]), parts.length > 2 ? parts[2] : "");
    }

    @Override
    public VersionedState state() {
        return state;
    }

    @Override
    public ConflictKeys conflictKeys(Command command) {
        String target = Integer.toString(command.target());
        return switch (command.operation()) {
            case "copy" -> ConflictKeys.of(Set.of(command.value()), Set.of(target));
            case "get" -> ConflictKeys.reading(target);
            default -> ConflictKeys.writing(target);
        };
    }

    @Override
    public String execute(Command command, ExecutionContext context) throws Exception {
        if (workMillis > 0) {
            Thread.sleep(workMillis);
        }
        TestCells.Cell target = cell(command.target());
        switch (command.operation()) {
            case "get" -> {
                return target.value;
            }
            case "refuse" ->
                throw new ApplicationException(
                        "refused", "cell " + command.target() + " is closed", new byte[] {(byte) command.target()});
            case "crash" -> throw new IllegalArgumentException("cell " + command.target() + " crashed");
            default -> {
                String old = target.value;
                state.modify(target);
                target.value = command.operation().equals("copy")
                        ? cell(Integer.parseInt(command.value())).value
                        : command.value() + "@" + context.batchSeq();
                return old;
            }
        }
    }

    private TestCells.Cell cell(int index) {
        return state.root("cells", TestCells.Cells.class).cells[index];
    }
}
