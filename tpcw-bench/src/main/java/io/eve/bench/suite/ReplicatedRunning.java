package io.eve.bench.suite;

import io.eve.client.EveClient;
import io.eve.transport.Transport;
import java.util.ArrayList;
import java.util.List;

/**
 * What the Eve modes' running clusters share: a {@link SuiteNetwork} for replicas and clients, the
 * clients, a call that fails on an error reply, and closing clients, then replicas, then the network.
 * Each mode adds its replicas and its end-of-point check.
 */
abstract class ReplicatedRunning implements Mode.Running {
    final List<EveClient> clients = new ArrayList<>();
    private final SuiteNetwork network;

    ReplicatedRunning(boolean netty, int firstClient) {
        this.network = new SuiteNetwork(netty, firstClient);
    }

    Transport serverTransport(int node) {
        return network.serverTransport(node);
    }

    void noteAddress(int node) {
        network.noteAddress(node);
    }

    Transport clientTransport(int id) {
        return network.clientTransport(id);
    }

    @Override
    public void call(int client, byte[] request) {
        if (clients.get(client).call(request).error()) {
            throw new IllegalStateException("the replicas answered an error");
        }
    }

    @Override
    public boolean isClientThread(Thread thread, ClientSide clientSide) {
        return network.isClientThread(thread, clientSide);
    }

    /** Stops the replicas (clients are closed before, the network after). */
    abstract void closeReplicas();

    @Override
    public void close() {
        clients.forEach(EveClient::close);
        closeReplicas();
        network.close();
    }
}
