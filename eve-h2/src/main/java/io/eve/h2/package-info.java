/**
 * An embedded H2 database as Eve replicated state (DESIGN.md section 8, docs/h2.md): {@link io.eve.h2.H2State}
 * (the {@link io.eve.merkle.VersionedState}), its settings {@link io.eve.h2.H2Config}, {@link io.eve.h2.H2Application}
 * for applications whose requests are SQL transactions, {@link io.eve.h2.SqlWork}, the deterministic
 * parameter values of {@link io.eve.h2.Sql}, and {@link io.eve.h2.ForbiddenStatementException}. The
 * mechanics (row triggers, canonical row encoding, AdHash buckets, undo log, deltas, the SQL guard) are
 * package-private; {@link io.eve.h2.RowTrigger} and {@link io.eve.h2.SqlFunctions} are public only because
 * H2 loads them by name.
 */
package io.eve.h2;
