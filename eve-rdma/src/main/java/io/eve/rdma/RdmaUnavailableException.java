package io.eve.rdma;

import io.eve.EveException;

/** Transport {@code rdma} was asked for, but this machine cannot do RDMA; the message lists every reason. */
public final class RdmaUnavailableException extends EveException {
    private static final long serialVersionUID = 1L;

    private final transient RdmaProbe.Result result;

    public RdmaUnavailableException(RdmaProbe.Result result) {
        super("transport = rdma was requested, but RDMA is unavailable on this machine:\n" + result.describeFailures()
                + "\nFix each point above, or choose transport = netty (or auto).");
        this.result = result;
    }

    /** The probe's findings. */
    public RdmaProbe.Result result() {
        return result;
    }
}
