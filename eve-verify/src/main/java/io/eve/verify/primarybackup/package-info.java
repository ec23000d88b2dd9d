/**
 * Synchronous primary-backup verification (Eve §6.2): the {@link io.eve.verify.primarybackup.PrimaryBackup}
 * state machine, which routes each input to the replica's role (the primary, or the backup, possibly catching
 * up), the fences that decide who may commit alone (a witness, or timing), the witness itself, and
 * {@link io.eve.verify.primarybackup.PrimaryBackupRoles}, the machine's place in the replica runtime.
 */
package io.eve.verify.primarybackup;
