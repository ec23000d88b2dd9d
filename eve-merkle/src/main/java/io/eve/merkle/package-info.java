/**
 * Versioned, hashable, roll-back-able state (DESIGN.md section 4): the {@link io.eve.merkle.VersionedState}
 * port the execution stage drives, the {@link io.eve.merkle.Digest} it returns, and the
 * {@link io.eve.merkle.StateDelta} that incremental state transfer ships.
 *
 * <p>Implementations: {@link io.eve.merkle.graph} (annotated object graphs and replicated collections).
 */
package io.eve.merkle;
