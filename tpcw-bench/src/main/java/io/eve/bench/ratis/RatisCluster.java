package io.eve.bench.ratis;

import io.eve.bench.suite.ClientSide;
import io.eve.bench.suite.Mode;
import io.eve.bench.suite.Workload;
import io.eve.merkle.Digest;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * A running three-node Ratis group in this JVM over Ratis' Netty RPC on 127.0.0.1, with an in-memory
 * Raft log ({@code raft.server.log.use.memory}) and its metadata in a fresh directory under the
 * storage root, deleted on close. Clients are {@link RaftClient}s using the async API; one client object
 * carries up to {@value #DRIVERS_PER_CLIENT} of the suite's closed-loop clients, each with one request
 * outstanding. Thread-safe.
 */
final class RatisCluster implements Mode.Running {
    static final int NODES = 3;
    private static final int DRIVERS_PER_CLIENT = 8;

    private final Path directory;
    private final List<RaftServer> servers = new ArrayList<>();
    private final List<KvStateMachine> machines = new ArrayList<>();
    private final List<RaftClient> clients = new ArrayList<>();

    private RatisCluster(Path directory) {
        this.directory = directory;
    }

    static RatisCluster start(Workload workload, ClientSide clientSide, Path storageRoot) throws Exception {
        Files.createDirectories(storageRoot);
        RatisCluster cluster = new RatisCluster(Files.createTempDirectory(storageRoot, "ratis-"));
        try {
            RaftGroup group = group();
            for (RaftPeer peer : group.getPeers()) {
                cluster.startServer(peer, group, workload);
            }
            cluster.awaitLeader(group.getGroupId());
            int raftClients = (workload.clients() + DRIVERS_PER_CLIENT - 1) / DRIVERS_PER_CLIENT;
            for (int i = 0; i < raftClients; i++) {
                cluster.clients.add(clientSide.build(() -> RaftClient.newBuilder()
                        .setProperties(properties(0))
                        .setRaftGroup(group)
                        .build()));
            }
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    private static RaftGroup group() throws IOException {
        List<RaftPeer> peers = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            peers.add(RaftPeer.newBuilder()
                    .setId(RaftPeerId.valueOf("n" + i))
                    .setAddress("127.0.0.1:" + freePort())
                    .build());
        }
        return RaftGroup.valueOf(RaftGroupId.randomId(), peers);
    }

    /** A port free now; Ratis needs every peer's address before any server binds. */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static RaftProperties properties(int port) {
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.NETTY);
        NettyConfigKeys.Server.setHost(properties, "127.0.0.1");
        NettyConfigKeys.Server.setPort(properties, port);
        RaftServerConfigKeys.Log.setUseMemory(properties, true);
        return properties;
    }

    private void startServer(RaftPeer peer, RaftGroup group, Workload workload) throws IOException {
        RaftProperties properties =
                properties(Integer.parseInt(peer.getAddress().split(":")[1]));
        RaftServerConfigKeys.setStorageDir(
                properties, List.of(directory.resolve(peer.getId().toString()).toFile()));
        KvStateMachine machine = new KvStateMachine(workload.newStore());
        RaftServer server = RaftServer.newBuilder()
                .setServerId(peer.getId())
                .setGroup(group)
                .setProperties(properties)
                .setStateMachine(machine)
                .setOption(RaftStorage.StartupOption.FORMAT)
                .build();
        server.start();
        servers.add(server);
        machines.add(machine);
    }

    /** Waits until a leader can take requests, so no measured request meets an election. */
    private void awaitLeader(RaftGroupId groupId) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            for (RaftServer server : servers) {
                if (server.getDivision(groupId).getInfo().isLeaderReady()) {
                    return;
                }
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("no Ratis leader was ready within 30 s");
    }

    @Override
    public void call(int client, byte[] request) throws Exception {
        RaftClientReply reply = clients.get(client / DRIVERS_PER_CLIENT)
                .async()
                .send(Message.valueOf(ByteString.copyFrom(request)))
                .get(60, TimeUnit.SECONDS);
        if (!reply.isSuccess()) {
            throw new IllegalStateException("Ratis did not commit a request", reply.getException());
        }
    }

    @Override
    public Mode.Check check() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!allApplied() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        List<Long> applied = machines.stream().map(KvStateMachine::applied).toList();
        List<Digest> roots = machines.stream().map(KvStateMachine::root).toList();
        boolean rootsEqual = allApplied() && roots.stream().distinct().count() == 1;
        return new Mode.Check(
                rootsEqual, rootsEqual, 0, "applied " + applied + ", roots " + (rootsEqual ? "equal" : roots));
    }

    private boolean allApplied() {
        return machines.stream().mapToLong(KvStateMachine::applied).distinct().count() == 1;
    }

    @Override
    public void close() throws IOException {
        for (RaftClient client : clients) {
            client.close();
        }
        for (RaftServer server : servers) {
            server.close();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
