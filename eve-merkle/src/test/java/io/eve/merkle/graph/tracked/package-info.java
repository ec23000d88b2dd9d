/** Enhanced state classes and their writers, one for each way Java code writes a field. */
package io.eve.merkle.graph.tracked;
