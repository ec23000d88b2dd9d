/** {@link io.eve.client.EveClient}: how applications talk to a replicated service. */
package io.eve.client;
