package io.eve.rdma;

import io.eve.EveException;

/**
 * A one-sided operation failed: the write path to that peer is broken (on RDMA the queue pair is in the
 * error state) and every later write on it fails too. The transport reacts by sending to that peer over
 * Netty.
 */
public class FabricException extends EveException {
    private static final long serialVersionUID = 1L;

    public FabricException(String message) {
        super(message);
    }

    public FabricException(String message, Throwable cause) {
        super(message, cause);
    }
}
