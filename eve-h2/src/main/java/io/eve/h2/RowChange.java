package io.eve.h2;

/**
 * One committed row event, normalised: an insert ({@code before} null), a delete ({@code after} null) or
 * an update. The undo log is a list of these; undoing one writes {@code before} back.
 */
record RowChange(TableState table, Object[] before, Object[] after) {}
