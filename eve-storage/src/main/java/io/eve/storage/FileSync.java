package io.eve.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * Forces a file's written bytes to the disk: {@link FileChannel#force}, or a counting wrapper in tests
 * (group commit is one force per group of records).
 */
@FunctionalInterface
interface FileSync {
    FileSync FORCE = channel -> channel.force(false);

    void force(FileChannel channel) throws IOException;
}
