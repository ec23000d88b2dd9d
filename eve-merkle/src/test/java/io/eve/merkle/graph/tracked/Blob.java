package io.eve.merkle.graph.tracked;

import io.eve.merkle.graph.ImmutableBytes;
import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/** An enhanced state class with an {@link ImmutableBytes} field, written without modify. */
@Replicated(name = "prop.Blob")
public final class Blob extends StateObject {
    long version;

    ImmutableBytes content;

    Blob() {}

    /** A blob holding a copy of {@code content}. */
    public Blob(byte[] content) {
        this.content = ImmutableBytes.copyOf(content);
    }

    /** Replaces the content and counts the change; the write barrier saves the pre-image. */
    public void replace(byte[] newContent) {
        content = ImmutableBytes.copyOf(newContent);
        version++;
    }

    /** The current content. */
    public ImmutableBytes content() {
        return content;
    }

    /** How many times the content was replaced. */
    public long version() {
        return version;
    }
}
