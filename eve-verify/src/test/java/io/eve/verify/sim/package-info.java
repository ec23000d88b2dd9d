/**
 * A deterministic simulator for the primary-backup protocol (DESIGN.md section 9, docs/simulation.md):
 * two real {@code PrimaryBackup} machines with real execution stages, a simulated clock and network,
 * faults chosen from one seed, and invariant checks after every event. One seed replays one run.
 */
package io.eve.verify.sim;
