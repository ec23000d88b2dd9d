/**
 * Eve's asynchronous quorum verification (Eve §6.1, docs/quorum.md), for the crash (u = 1, r = 0) and bft
 * (u = r = 1) profiles: the {@link io.eve.verify.quorum.Verifier} and the
 * {@link io.eve.verify.quorum.ExecutionReplica} as deterministic state machines (time is an argument,
 * output goes through {@link io.eve.verify.quorum.Outbox} and {@link io.eve.verify.quorum.ExecutionActions}),
 * the verifier's view changes ({@code ViewChangeDriver}, with the rules of {@code ViewChanges}), the rejoin
 * of a restarted verifier without a view change ({@code Rejoin}), its extra
 * protection mode for r = 0 (Eve §6.3, {@code ExtraProtection}), and their
 * {@link io.eve.verify.quorum.QuorumConfig}.
 */
package io.eve.verify.quorum;
