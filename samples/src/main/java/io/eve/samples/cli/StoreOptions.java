package io.eve.samples.cli;

import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.WorkKind;
import picocli.CommandLine.Option;

/** The shape of the key-value store, identical on every replica of a cluster. */
final class StoreOptions {
    @Option(
            names = "--objects",
            defaultValue = "10000",
            description = "Objects in the store (default ${DEFAULT-VALUE}).")
    int objects;

    @Option(
            names = "--object-size",
            defaultValue = "1024",
            description = "Bytes per object (default ${DEFAULT-VALUE}).")
    int objectSize;

    @Option(
            names = "--work-us",
            defaultValue = "200",
            description = "Work per request in microseconds (default ${DEFAULT-VALUE}).")
    long workMicros;

    @Option(
            names = "--work-kind",
            defaultValue = "BLOCKING",
            description = "CPU or BLOCKING (default ${DEFAULT-VALUE}).")
    WorkKind workKind;

    KeyValueStore build() {
        return KeyValueStore.builder()
                .objects(objects)
                .objectSize(objectSize)
                .workMicros(workMicros)
                .workKind(workKind)
                .build();
    }
}
