package io.eve.bench.ratis;

import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.WorkKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;

/**
 * Apache Ratis as separate processes for the deployed benchmark ({@code io.eve.bench.deployed}): a group
 * described on the command line as {@code n0@127.0.0.1:port,n1@...} with a group UUID, the RPC (gRPC or
 * Netty) and the same in-memory log and key-value state machine as {@link RatisCluster}. {@link #main}
 * runs one server until the process is killed. Stateless.
 */
public final class RatisProcesses {
    private RatisProcesses() {}

    /** Ratis' transports measured. */
    public enum Rpc {
        /** Ratis over gRPC (its default). */
        GRPC,
        /** Ratis over its Netty RPC. */
        NETTY;

        /** The lower-case name used on command lines ({@code grpc}, {@code netty}). */
        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Parses {@code grpc} or {@code netty}, in any case. */
        public static Rpc parse(String text) {
            for (Rpc rpc : values()) {
                if (rpc.key().equalsIgnoreCase(text)) {
                    return rpc;
                }
            }
            throw new IllegalArgumentException("Ratis RPC must be grpc or netty, got '" + text + "'");
        }
    }

    /** The group of {@code peers} ({@code id@host:port}, comma-separated) with id {@code groupId}. */
    public static RaftGroup group(String peers, String groupId) {
        List<RaftPeer> parsed = new ArrayList<>();
        for (String peer : peers.split(",")) {
            String trimmed = peer.trim();
            int at = trimmed.indexOf('@');
            if (at <= 0 || trimmed.lastIndexOf(':') < at) {
                throw new IllegalArgumentException("a Ratis peer must be id@host:port, got '" + trimmed + "'");
            }
            parsed.add(RaftPeer.newBuilder()
                    .setId(RaftPeerId.valueOf(trimmed.substring(0, at)))
                    .setAddress(trimmed.substring(at + 1))
                    .build());
        }
        return RaftGroup.valueOf(RaftGroupId.valueOf(UUID.fromString(groupId)), parsed);
    }

    /** Properties for a client ({@code port} 0) or a server on {@code port} of 127.0.0.1 over {@code rpc}. */
    public static RaftProperties properties(Rpc rpc, int port) {
        RaftProperties properties = new RaftProperties();
        if (rpc == Rpc.GRPC) {
            RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
            GrpcConfigKeys.Server.setHost(properties, "127.0.0.1");
            GrpcConfigKeys.Server.setPort(properties, port);
        } else {
            RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.NETTY);
            NettyConfigKeys.Server.setHost(properties, "127.0.0.1");
            NettyConfigKeys.Server.setPort(properties, port);
        }
        RaftServerConfigKeys.Log.setUseMemory(properties, true);
        return properties;
    }

    /**
     * Runs one server until the process is killed: {@code --id n0 --peers n0@127.0.0.1:p0,... --group UUID
     * --rpc grpc|netty --objects N --object-size B --work-us W --storage DIR}. Prints {@code started} once
     * the server listens.
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        java.util.Map<String, String> options = new java.util.HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got '" + args[i] + "'");
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        RaftGroup group = group(required(options, "peers"), required(options, "group"));
        RaftPeerId id = RaftPeerId.valueOf(required(options, "id"));
        RaftPeer self = group.getPeer(id);
        if (self == null) {
            throw new IllegalArgumentException("--id " + id + " is not among --peers " + group.getPeers());
        }
        String address = self.getAddress();
        RaftProperties properties = properties(
                Rpc.parse(required(options, "rpc")), Integer.parseInt(address.substring(address.lastIndexOf(':') + 1)));
        Path storage = Files.createDirectories(Path.of(required(options, "storage")));
        RaftServerConfigKeys.setStorageDir(properties, List.of(storage.toFile()));
        KeyValueStore store = KeyValueStore.builder()
                .objects(Integer.parseInt(required(options, "objects")))
                .objectSize(Integer.parseInt(required(options, "object-size")))
                .workMicros(Long.parseLong(required(options, "work-us")))
                .workKind(WorkKind.BLOCKING)
                .build();
        RaftServer server = RaftServer.newBuilder()
                .setServerId(id)
                .setGroup(group)
                .setProperties(properties)
                .setStateMachine(new KvStateMachine(store))
                .setOption(RaftStorage.StartupOption.FORMAT)
                .build();
        server.start();
        System.out.println("started " + id + " on " + address);
        new CountDownLatch(1).await();
    }

    private static String required(java.util.Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing --" + name);
        }
        return value;
    }
}
