package io.eve.client;

import io.eve.EveException;

/**
 * No replica answered anything at all while a request was outstanding: the cluster is down or
 * unreachable from this client (a plain {@link RequestTimeoutException} means replicas answered, but
 * not this request in time).
 */
public final class ClusterUnavailableException extends EveException {
    private static final long serialVersionUID = 1L;

    public ClusterUnavailableException(String message) {
        super(message);
    }
}
