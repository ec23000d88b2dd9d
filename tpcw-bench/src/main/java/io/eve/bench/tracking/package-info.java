/** Benchmarks of tracked writes (the eve-enhance build step) against explicit modify. */
package io.eve.bench.tracking;
