/**
 * The key-value store of Eve §7.2 as an Eve application: fixed-size objects addressed by id, per-request
 * work of a chosen length and kind, and a binary request format ({@link io.eve.samples.kv.KvRequest}).
 * The microbenchmarks' knobs (object count for the conflict rate, object size, work per request) are the
 * store's settings.
 */
package io.eve.samples.kv;
