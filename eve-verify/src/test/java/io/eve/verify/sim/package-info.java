/**
 * A deterministic simulator for the primary-backup and quorum protocols (DESIGN.md section 9,
 * docs/simulation.md): real protocol machines with real execution stages, a simulated clock and network,
 * faults chosen from one seed, invariant checks after every event, and at the end of every run a
 * linearizability check of what clients sharing a few keys saw. One seed replays one run.
 */
package io.eve.verify.sim;
