/** Test load for client sessions: one client, many threads, exactly-once checked through counters. */
package io.eve.verify.session;
