/**
 * Replicated state made of annotated Java objects (Eve §5.2): {@link io.eve.merkle.graph.ObjectGraphState},
 * the {@link io.eve.merkle.graph.Replicated} and {@link io.eve.merkle.graph.Exclude} annotations, the
 * {@link io.eve.merkle.graph.StateObject} base class, and the replicated map, set and cell. The mechanics
 * (placement, collection, hashing, pre-images, deltas, field access) are package-private.
 */
package io.eve.merkle.graph;
