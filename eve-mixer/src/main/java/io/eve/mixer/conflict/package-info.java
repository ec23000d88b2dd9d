/**
 * The key-conflict mixer of Eve §5.1: first-fit packing of a batch's requests into parallel batches by
 * their read and write keys, keeping conflicting requests in batch order.
 *
 * <p>{@link io.eve.mixer.conflict.KeyConflictMixer} is the public entry; {@code KeyIndex} (where each key
 * was last read and written) and {@code FirstFitSlots} (the first parallel batch with room) are its
 * package-private mechanics, both confined to one {@code mix} call.
 */
package io.eve.mixer.conflict;
