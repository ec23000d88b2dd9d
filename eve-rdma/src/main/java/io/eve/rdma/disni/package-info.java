/**
 * The {@link io.eve.rdma.OneSidedFabric} over DiSNI 2.1 verbs: the only package that imports {@code
 * com.ibm.disni}, loaded by name only after {@link io.eve.rdma.RdmaProbe} passed, so nothing else can set
 * off DiSNI's native static initializer. Work-request construction, selective signalling, completion
 * bookkeeping and status mapping are plain classes, tested without natives.
 */
package io.eve.rdma.disni;
