/** The TPC-W tables, the scale rules and the seeded, deterministic initial population. */
package io.eve.tpcw.schema;
