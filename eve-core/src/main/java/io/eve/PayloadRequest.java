package io.eve;

import io.eve.mixer.ConflictKeys;

/**
 * The prepared form of a request to an application that does not decode ahead: the payload itself, handed
 * to {@link Application#conflictKeys} and {@link Application#execute}. Immutable.
 */
record PayloadRequest(Application application, byte[] payload) implements PreparedRequest {

    @Override
    public ConflictKeys conflictKeys() {
        return application.conflictKeys(payload);
    }

    @Override
    public byte[] execute(ExecutionContext context) throws Exception {
        return application.execute(payload, context);
    }
}
