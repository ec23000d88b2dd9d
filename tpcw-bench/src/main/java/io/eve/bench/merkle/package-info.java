/** JMH microbenchmarks of eve-merkle: sealing against raw SHA-256, modify, rollback. */
package io.eve.bench.merkle;
