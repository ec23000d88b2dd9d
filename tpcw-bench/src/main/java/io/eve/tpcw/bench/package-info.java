/**
 * The benchmark modes (plain H2, Eve primary-backup and crash in one JVM), the closed-loop load, checks, JSON
 * and chart; and the multi-process mode: a cluster of replica JVMs ({@link io.eve.tpcw.bench.ProcessCluster}),
 * the load over TCP with the {@code /status} root audit ({@link io.eve.tpcw.bench.ClusterLoad}) and the
 * benchmark against sequential H2 ({@link io.eve.tpcw.bench.ProcessBenchmark}).
 */
package io.eve.tpcw.bench;
