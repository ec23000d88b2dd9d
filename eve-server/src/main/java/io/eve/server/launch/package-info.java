/**
 * The launcher: runs any {@link io.eve.Application} class as a replica process ({@code replica --app CLASS
 * --classpath JARS --config F --node N}) and an application's {@link io.eve.client.ClientProgram} as a client
 * ({@code client --app-client CLASS ...}), loading the application's classes from the given class path.
 */
package io.eve.server.launch;
