/** The 14 TPC-W interactions: their compact payloads, validation, and deterministic SQL. */
package io.eve.tpcw.interaction;
