/** State classes left unenhanced, for the tests of manual tracking and of the debug check. */
package io.eve.merkle.graph.manual;
