package io.eve.config;

/**
 * Where a replica listens.
 *
 * @param id the node id, unique in the cluster
 * @param host a host name or address
 * @param port a TCP port, 1 to 65535
 */
public record NodeAddress(int id, String host, int port) {
    @Override
    public String toString() {
        return id + "@" + host + ":" + port;
    }
}
