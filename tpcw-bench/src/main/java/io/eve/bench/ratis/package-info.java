/**
 * Apache Ratis as a peer in the key-value suite: {@link io.eve.bench.ratis.RatisMode} runs a three-node
 * Raft group over Ratis' Netty RPC on loopback in this JVM, each node applying the same key-value requests
 * to its own {@code KeyValueStore} sequentially in log order ({@code KvStateMachine}), with an in-memory
 * Raft log. {@code NoopMetricRegistries} stands in for Ratis' metrics implementation, which is not on
 * the class path.
 */
package io.eve.bench.ratis;
