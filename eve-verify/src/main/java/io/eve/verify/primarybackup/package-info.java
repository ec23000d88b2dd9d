/**
 * Synchronous primary-backup verification (Eve §6.2): the {@link io.eve.verify.primarybackup.PrimaryBackup}
 * state machine and the {@link io.eve.verify.primarybackup.PrimaryBackupReplica} that runs it.
 */
package io.eve.verify.primarybackup;
