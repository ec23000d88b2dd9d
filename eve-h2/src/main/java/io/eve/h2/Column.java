package io.eve.h2;

/**
 * One column of a replicated table, in ordinal order.
 *
 * @param name the column name as H2 stores it
 * @param kind how its values are hashed and transferred
 * @param generated whether H2 computes it ({@code GENERATED ALWAYS AS}); it is hashed but never written
 */
record Column(String name, ColumnKind kind, boolean generated) {}
