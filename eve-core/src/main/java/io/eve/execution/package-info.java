/**
 * The execution stage (DESIGN.md section 6): mixing, parallel execution with barriers, sealing, tokens,
 * exactly-once through a reply cache inside the replicated state.
 */
package io.eve.execution;
