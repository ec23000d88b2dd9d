package io.eve.merkle.graph.manual;

import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/**
 * The unenhanced twin of {@code tracked.Blob} with a raw {@code byte[]} field (manual tracking only):
 * the same stable name and field names, so equal content must hash alike.
 */
@Replicated(name = "prop.Blob")
public final class RawBlob extends StateObject {
    long version;

    byte[] content;

    RawBlob() {}

    /** A blob holding a copy of {@code content}. */
    public RawBlob(byte[] content) {
        this.content = content.clone();
    }

    /** Replaces the content after an explicit modify. */
    public void replace(ObjectGraphState state, byte[] newContent) {
        state.modify(this);
        content = newContent.clone();
        version++;
    }
}
