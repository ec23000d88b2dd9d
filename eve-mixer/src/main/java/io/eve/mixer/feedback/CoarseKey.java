package io.eve.mixer.feedback;

/**
 * The one synthetic key that stands for all suspect keys of the rollback of batch {@code rollbackSeq}. The
 * type is package-private, so it can never equal an application's key.
 */
record CoarseKey(long rollbackSeq) {}
