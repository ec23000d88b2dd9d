package io.eve.merkle;

import java.util.Objects;

/**
 * One object of a batch's write set and its leaf digest after the batch (docs/state.md, "Diagnosing a batch
 * that still differs"): what two replicas compare, id by id, to name the objects on which they diverged.
 *
 * @param id the object's id; {@link #TABLE_ID} is the roots table and the id allocator
 * @param stableName the name that goes into the object's digest ({@code @Replicated(name = ...)}), empty for
 *     the table
 * @param className the object's Java class, empty for the table
 * @param digest the object's leaf digest after the batch; {@link Digest#ZERO} for an object the batch freed
 */
public record ObjectDigest(long id, String stableName, String className, Digest digest) {
    /** The id of the slot that holds the roots table and the id allocator, not an object. */
    public static final long TABLE_ID = 0;

    public ObjectDigest {
        if (id < 0) {
            throw new IllegalArgumentException("object ids are not negative, got " + id);
        }
        Objects.requireNonNull(stableName, "stableName");
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(digest, "digest");
    }

    /** Whether the batch freed the object (its slot is empty after it). */
    public boolean freed() {
        return digest.equals(Digest.ZERO);
    }

    /** For people: "object 7 (shop.Account, com.example.Account)", or the roots table. */
    public String describe() {
        if (id == TABLE_ID) {
            return "the roots table and id allocator (id 0)";
        }
        return "object " + id + " (" + stableName + ", " + className + (freed() ? ", freed" : "") + ")";
    }
}
