/**
 * Durable storage of an execution replica (docs/operations.md, "Storage"; docs/decisions/0019): a log of
 * committed batches written by one thread with group commit, incremental checkpoints of the Merkle state
 * recorded in a manifest, and recovery from both when the replica starts. {@link io.eve.storage.Storage} is
 * the one entry point.
 */
package io.eve.storage;
