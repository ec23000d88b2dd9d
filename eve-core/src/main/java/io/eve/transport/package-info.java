/** The {@link io.eve.transport.Transport} port and the in-JVM {@link io.eve.transport.LocalNetwork}. */
package io.eve.transport;
