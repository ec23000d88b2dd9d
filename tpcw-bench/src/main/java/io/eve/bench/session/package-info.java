/** A benchmark of one client shared by many threads against one client per thread (client sessions). */
package io.eve.bench.session;
