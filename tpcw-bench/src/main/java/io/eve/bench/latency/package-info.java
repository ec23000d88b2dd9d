/**
 * Request latency at low load: one client's sequential requests to a primary-backup pair of replica
 * processes, measured in the same run as a raw Netty ping-pong over the same loopback, so the result
 * reads as a number of raw round trips.
 */
package io.eve.bench.latency;
