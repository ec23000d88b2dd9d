/**
 * The pieces every benchmark of tpcw-bench shares: child JVMs that never outlive the benchmark ({@link
 * io.eve.bench.harness.ChildJvms}), a process's CPU time ({@link io.eve.bench.harness.ProcessCpu}), the
 * progress bar ({@link io.eve.bench.harness.Progress}, me.tongfei:progressbar) and JSON ({@link
 * io.eve.bench.harness.Json}, Jackson). Latencies go into HdrHistogram directly.
 */
package io.eve.bench.harness;
