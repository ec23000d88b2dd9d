/**
 * Running a replica of any application, in every profile, from a cluster configuration: {@link
 * io.eve.server.EveReplica} embeds one in a program's {@code main} in a few lines, wiring the transport (Netty,
 * or RDMA beside it), the bft authenticators, the protocol roles of the node and the {@code /metrics} and
 * {@code /status} endpoints; {@code io.eve.server.launch} runs any {@link io.eve.Application} class as a
 * separate process.
 */
package io.eve.server;
