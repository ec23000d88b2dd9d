/**
 * The key-value performance suite (Eve §7.2, Figs. 4 to 7): one command, {@link io.eve.bench.suite.KvSuite},
 * runs the key-value store of {@code io.eve.samples.kv} in several {@link io.eve.bench.suite.Mode}s in one
 * JVM (unreplicated, sequential replication, Eve primary-backup, and peers such as Apache Ratis), drives
 * each with the same closed-loop clients, measures throughput and the CPU time the servers spent per
 * committed request, and writes JSON and PNG plots.
 *
 * <p>The pieces: {@code Workload} (one point's settings), {@code Figure} (the named sweeps),
 * {@code ClosedLoopDriver} (clients and measurement), {@code CpuMeter} and {@code CpuAccounting} (CPU per
 * request), {@code JsonReport} and {@code Plots} (output), the harness's {@code Progress} (stderr).
 */
package io.eve.bench.suite;
