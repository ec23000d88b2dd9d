/**
 * {@code eve-kv}, the command line of the key-value sample: replicas over TCP with metrics, clients with
 * load and single requests, and the multi-process demo that is the README's main job.
 */
package io.eve.samples.cli;
