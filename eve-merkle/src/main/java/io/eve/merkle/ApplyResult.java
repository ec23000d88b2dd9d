package io.eve.merkle;

import java.util.Objects;

/**
 * The outcome of {@link VersionedState#apply}: applied, or rejected with the reason and the state left
 * untouched. A rejected delta is a normal protocol outcome (a lying or stale replica), not an error.
 *
 * @param applied whether the state now holds the delta's target version
 * @param root the root after applying, or the root the delta would have produced ({@code null} when the
 *     delta could not even be decoded)
 * @param reason why the delta was rejected; empty when applied
 */
public record ApplyResult(boolean applied, Digest root, String reason) {
    public ApplyResult {
        Objects.requireNonNull(reason, "reason");
    }

    public static ApplyResult applied(Digest root) {
        return new ApplyResult(true, root, "");
    }

    public static ApplyResult rejected(Digest root, String reason) {
        return new ApplyResult(false, root, reason);
    }
}
