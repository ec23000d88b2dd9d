/**
 * The one replica runtime of every profile (DESIGN.md sections 9 and 11): {@link
 * io.eve.verify.runtime.ReplicaRuntime} owns a node's threads, mailboxes, transport, execution stage,
 * metrics and status, and hosts whichever protocol roles the profile gives the node ({@link
 * io.eve.verify.runtime.HostedRoles}: primary-backup's machine, or a quorum process's execution replica
 * and verifier). Roles reach the runtime only through {@link io.eve.verify.runtime.ReplicaHost}.
 */
package io.eve.verify.runtime;
