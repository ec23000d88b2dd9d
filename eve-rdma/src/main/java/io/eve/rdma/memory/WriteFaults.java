package io.eve.rdma.memory;

/** Decides the {@link Placement} of each write; called on the writer's thread. */
@FunctionalInterface
public interface WriteFaults {
    WriteFaults NONE = (writer, owner, offset, length) -> Placement.NOW;

    Placement place(int writer, int owner, long offset, int length);
}
