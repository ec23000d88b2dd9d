/** The TPC-W conflict keys of Eve's mixer: table names, with the cart tables partitioned by cart id. */
package io.eve.tpcw.mixer;
