/**
 * Synchronous primary-backup verification (Eve §6.2): the {@link io.eve.verify.primarybackup.PrimaryBackup}
 * state machine and {@link io.eve.verify.primarybackup.PrimaryBackupRoles}, its place in the replica runtime.
 */
package io.eve.verify.primarybackup;
