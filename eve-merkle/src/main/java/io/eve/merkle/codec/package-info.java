/**
 * Canonical binary encoding shared by hashing and transfer: {@link io.eve.merkle.codec.Sink} with one
 * implementation that streams into SHA-256 without copying and one that fills a buffer, and a
 * bounds-checked {@link io.eve.merkle.codec.Source} for reading untrusted input. Mechanics, not API.
 */
package io.eve.merkle.codec;
