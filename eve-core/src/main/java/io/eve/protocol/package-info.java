/** The messages of the protocols ({@link io.eve.protocol.Message}), one record each. */
package io.eve.protocol;
