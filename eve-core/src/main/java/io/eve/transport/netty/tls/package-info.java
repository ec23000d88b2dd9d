/**
 * Mutual TLS 1.3 for the TCP transport (docs/operations.md, "Security"): each process's identity (a private
 * key and a certificate signed by the cluster's CA), the checks made when it is loaded, and the identity a
 * certificate grants: a node id, or a range of client ids.
 */
package io.eve.transport.netty.tls;
