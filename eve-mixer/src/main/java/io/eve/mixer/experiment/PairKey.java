package io.eve.mixer.experiment;

/**
 * A synthetic conflict key shared by exactly two requests of one batch, so that it makes those two, and
 * only those two, conflict. The type is package-private, so it can never equal an application's key.
 *
 * @param first position of the earlier request
 * @param second position of the later request
 */
record PairKey(int first, int second) {}
