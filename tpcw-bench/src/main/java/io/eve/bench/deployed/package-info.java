/**
 * The deployed benchmark: Eve's profiles and Apache Ratis as separate JVMs on 127.0.0.1, driven by a load JVM
 * with an asynchronous closed loop ({@link io.eve.bench.deployed.DeployedBenchmark}).
 */
package io.eve.bench.deployed;
