/**
 * Eve for the JVM: execute-verify replication (Eve, OSDI 2012). The pipeline, one batch end to end:
 *
 * <pre>
 * client --Request--> primary's {@link io.eve.batch.Batcher} --Batch(seq, requests, timestamp, seed)--> every replica
 *   {@link io.eve.mixer.Mixer} splits it into parallel batches (eve-mixer)
 *   {@link io.eve.execution.ExecutionStage} runs each parallel batch on the executor threads, then seals the
 *       state ({@link io.eve.merkle.VersionedState}, eve-merkle) and computes a {@link io.eve.execution.Token}
 *   verification (eve-verify) compares tokens: commit and release replies, roll back and re-execute
 *       sequentially, or repair a replica by state transfer
 * </pre>
 *
 * <p>This package holds what an application programs against: {@link io.eve.Application},
 * {@link io.eve.ExecutionContext}, {@link io.eve.Request}, {@link io.eve.Reply}; for typed requests
 * {@link io.eve.TypedApplication} and {@link io.eve.RequestCodec}, and {@link io.eve.ApplicationException}
 * for errors with codes (docs/application.md).
 */
package io.eve;
