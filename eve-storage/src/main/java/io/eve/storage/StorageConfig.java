package io.eve.storage;

import io.eve.config.ClusterConfig;
import io.eve.config.ClusterConfig.Storage.Sync;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * The settings of one node's storage.
 *
 * @param dir the node's own directory ({@code storage.dir/node-<id>})
 * @param sync when appended batches are forced to the disk
 * @param syncInterval for {@link Sync#INTERVAL}: the longest time between two forces
 * @param checkpointEvery committed batches between two checkpoints
 * @param maxChainLinks incremental checkpoints at most after a full one; the next one is full
 * @param segmentBytes a log segment grows to about this size before the next one starts
 */
public record StorageConfig(
        Path dir, Sync sync, Duration syncInterval, int checkpointEvery, int maxChainLinks, long segmentBytes) {

    public StorageConfig {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(sync, "sync");
        if (syncInterval.isNegative() || syncInterval.isZero()) {
            throw new IllegalArgumentException("syncInterval must be positive, got " + syncInterval);
        }
        if (checkpointEvery < 1 || maxChainLinks < 1 || segmentBytes < 1) {
            throw new IllegalArgumentException(
                    "checkpointEvery, maxChainLinks and segmentBytes must be at least 1, got " + checkpointEvery + ", "
                            + maxChainLinks + ", " + segmentBytes);
        }
    }

    /** Defaults: sync per batch, a checkpoint every 1,000 batches, 16 links, 64 MiB segments. */
    public static StorageConfig of(Path dir) {
        return new StorageConfig(dir, Sync.BATCH, Duration.ofMillis(10), 1000, 16, 64L << 20);
    }

    /** Node {@code node}'s storage as the cluster configuration sets it. */
    public static StorageConfig from(ClusterConfig.Storage storage, int node) {
        return from(storage, node, Path.of(""));
    }

    /**
     * Node {@code node}'s storage as the cluster configuration sets it, a relative {@code storage.dir} resolved
     * against {@code base} (the configuration file's folder, as for the other files a configuration names).
     */
    public static StorageConfig from(ClusterConfig.Storage storage, int node, Path base) {
        return of(base.resolve(storage.nodeDir(node)))
                .withSync(storage.sync(), storage.syncInterval())
                .withCheckpoints(storage.checkpointEvery(), 16);
    }

    public StorageConfig withSync(Sync sync, Duration syncInterval) {
        return new StorageConfig(dir, sync, syncInterval, checkpointEvery, maxChainLinks, segmentBytes);
    }

    public StorageConfig withCheckpoints(int checkpointEvery, int maxChainLinks) {
        return new StorageConfig(dir, sync, syncInterval, checkpointEvery, maxChainLinks, segmentBytes);
    }

    public StorageConfig withSegmentBytes(long segmentBytes) {
        return new StorageConfig(dir, sync, syncInterval, checkpointEvery, maxChainLinks, segmentBytes);
    }
}
