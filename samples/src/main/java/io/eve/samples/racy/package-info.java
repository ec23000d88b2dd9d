/**
 * A deliberately racy application, in the spirit of the H2 row-counter bug of Eve §7.4: an unsynchronized
 * read-modify-write of a shared counter. It is correct under the exact mixer, which serializes the
 * increments because they declare the counter as written, and it races under a mixer that ignores
 * conflict keys, where verification and sequential re-execution have to mask it.
 */
package io.eve.samples.racy;
