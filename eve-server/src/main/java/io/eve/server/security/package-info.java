/**
 * Making a cluster's secrets (docs/operations.md, "Security"): a CA, each node's TLS identity and
 * authenticator keys, clients' identities, and the localhost demo bundle of the shipped bft profile.
 */
package io.eve.server.security;
