/**
 * TPC-W on H2 as an Eve application (Eve §7.1, Fig. 3): {@link io.eve.tpcw.TpcwApplication} runs the 14
 * interactions on an eve-h2 state, {@link io.eve.tpcw.TpcwDatabase} builds populated databases and
 * {@link io.eve.tpcw.TpcwBenchmark} measures one mix unreplicated and replicated. Sub-packages: {@code schema}
 * (tables and the seeded population), {@code interaction} (payloads and SQL), {@code mixer} (conflict keys),
 * {@code driver} (mixes and emulated browsers), {@code bench} (modes, measurement, checks, output).
 */
package io.eve.tpcw;
