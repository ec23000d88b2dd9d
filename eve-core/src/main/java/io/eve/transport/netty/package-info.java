/**
 * The TCP {@link io.eve.transport.Transport} on Netty: framing, handshake, per-peer connections. The only
 * package where Netty types appear.
 */
package io.eve.transport.netty;
