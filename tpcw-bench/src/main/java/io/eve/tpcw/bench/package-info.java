/** The benchmark modes (plain H2, Eve primary-backup), the closed-loop load, checks, JSON and chart. */
package io.eve.tpcw.bench;
