package io.eve.execution;

import io.eve.ApplicationException;
import io.eve.ExecutionContext;
import io.eve.PreparedRequest;
import io.eve.mixer.ConflictKeys;

/**
 * A request the application could not prepare: it has no conflict keys (so it conflicts with every other,
 * and its batch runs in order) and its execution answers with the failure. Immutable.
 */
record Unprepared(ApplicationException failure) implements PreparedRequest {

    @Override
    public ConflictKeys conflictKeys() {
        throw failure;
    }

    @Override
    public byte[] execute(ExecutionContext context) {
        throw failure;
    }
}
