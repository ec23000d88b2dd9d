package io.eve.merkle.graph;

/** A test root holding replicated collections next to ordinary fields. */
@Replicated(name = "test.Directory")
final class Directory extends StateObject {
    ReplicatedMap<String, Object> entries;
    ReplicatedSet<Long> members;
    ReplicatedCell<String> motto;
    long generation;

    Directory() {}

    static Directory create() {
        Directory directory = new Directory();
        directory.entries = new ReplicatedMap<>();
        directory.members = new ReplicatedSet<>();
        directory.motto = new ReplicatedCell<>("hello");
        return directory;
    }
}
