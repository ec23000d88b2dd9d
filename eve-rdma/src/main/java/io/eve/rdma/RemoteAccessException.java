package io.eve.rdma;

/**
 * The peer no longer lets us write its region: it revoked our registration (RDMA's {@code
 * IBV_WC_REM_ACCESS_ERR}). A separate type because the cause is a decision of the peer, not a fault.
 */
public final class RemoteAccessException extends FabricException {
    private static final long serialVersionUID = 1L;

    public RemoteAccessException(String message) {
        super(message);
    }
}
