/** End-to-end throughput benchmarks of replicated clusters against unreplicated servers, in one run. */
package io.eve.bench.cluster;
