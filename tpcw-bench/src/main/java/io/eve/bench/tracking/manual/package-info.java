/** Unenhanced twins of the tracked benchmark state, for the explicit-modify baseline. */
package io.eve.bench.tracking.manual;
