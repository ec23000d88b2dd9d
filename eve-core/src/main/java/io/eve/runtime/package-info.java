/**
 * How a replica runs its single-threaded parts without a thread each (DESIGN.md section 9): the mailbox
 * that serializes a role's events and runs them on the thread that delivered them when the role is idle.
 */
package io.eve.runtime;
