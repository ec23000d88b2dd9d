/**
 * The service of docs/tutorial.md, "Your first replicated service": a bank of accounts with deposits,
 * transfers, balances and an audited total. {@link io.eve.samples.tutorial.Bank} is the application,
 * {@link io.eve.samples.tutorial.BankReplica} embeds one replica in a {@code main}, and
 * {@link io.eve.samples.tutorial.BankClient} is the command line a client runs through the launcher.
 */
package io.eve.samples.tutorial;
