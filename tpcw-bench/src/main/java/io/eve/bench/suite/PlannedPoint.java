package io.eve.bench.suite;

/**
 * One point to measure: a mode, a workload, and the plotted line it belongs to.
 *
 * @param series the line ({@code "Eve primary-backup, 1 ms"})
 * @param mode the mode
 * @param workload its settings
 * @param x the point's position on the plot's horizontal axis (threads, or conflict probability in %)
 */
record PlannedPoint(String series, Mode mode, Workload workload, double x) {}
