/**
 * Authenticators for the bft profile (Eve §3, docs/quorum.md "Authenticators", decision 0013): HMAC-SHA256
 * keys per pair of processes ({@link io.eve.verify.auth.MacKeys}), tag vectors
 * ({@link io.eve.verify.auth.Authenticator}), the rules of authenticated links
 * ({@link io.eve.verify.auth.Envelopes}), forwarded proofs for the verifier
 * ({@link io.eve.verify.auth.MacEvidence}) and a {@link io.eve.transport.Transport} decorator
 * ({@link io.eve.verify.auth.AuthenticatingTransport}, the only class here with threads or a clock).
 */
package io.eve.verify.auth;
