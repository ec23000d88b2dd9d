/**
 * {@link io.eve.client.EveClient}: how applications talk to a replicated service;
 * {@link io.eve.client.ServiceClient} on top of it for typed requests and errors with codes.
 */
package io.eve.client;
