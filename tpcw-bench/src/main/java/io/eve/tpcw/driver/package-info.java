/** The TPC-W workload mixes and the emulated browsers that draw requests from them. */
package io.eve.tpcw.driver;
