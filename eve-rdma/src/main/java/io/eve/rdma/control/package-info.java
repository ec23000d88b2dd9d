/**
 * The control plane of the RDMA transport, over Netty: connection set-up (who is who, and from which
 * message on), region descriptors, acknowledgements, degradation notices, and the slow path for messages
 * that do not go through a ring, under the cluster's mutual TLS when it has one. Netty types stay inside this
 * package.
 */
package io.eve.rdma.control;
