/**
 * Checking recorded histories: {@link io.eve.verify.history.LinearizabilityChecker} decides whether the
 * operations clients saw are linearizable against a sequential {@link io.eve.verify.history.Model}.
 */
package io.eve.verify.history;
