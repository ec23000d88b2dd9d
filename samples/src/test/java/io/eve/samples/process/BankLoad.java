package io.eve.samples.process;

import io.eve.client.ApplicationErrorException;
import io.eve.client.EveClient;
import io.eve.client.ServiceClient;
import io.eve.samples.tutorial.Bank;
import io.eve.samples.tutorial.BankRequest;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client thread of the tutorial bank's load in the process tests: random deposits and transfers among
 * accounts {@code a0} to {@code a(accounts - 1)} until {@code running} clears. Every acknowledged deposit adds
 * its amount to {@code deposited} and one to {@code deposits}, so a test can check the audited total. A refused
 * transfer for lack of funds is expected; any other error is added to {@code failures}, and an exception other
 * than a coded application error (an unacknowledged deposit leaves the total uncertain) also ends the thread.
 */
final class BankLoad {
    private BankLoad() {}

    static void run(
            EveClient client,
            SplittableRandom random,
            int accounts,
            AtomicBoolean running,
            AtomicLong deposited,
            AtomicLong deposits,
            List<String> failures) {
        ServiceClient<BankRequest, Long> bank = new ServiceClient<>(client, BankRequest.CODEC);
        while (running.get()) {
            String from = "a" + random.nextInt(accounts);
            long amount = 1 + random.nextInt(20);
            try {
                if (random.nextBoolean()) {
                    bank.invoke(new BankRequest.Deposit(from, amount));
                    deposited.addAndGet(amount);
                    deposits.incrementAndGet();
                } else {
                    bank.invoke(new BankRequest.Transfer(from, "a" + random.nextInt(accounts), amount * 10));
                }
            } catch (ApplicationErrorException e) {
                if (!e.code().equals(Bank.INSUFFICIENT_FUNDS)) {
                    failures.add(e.getMessage());
                }
            } catch (RuntimeException e) {
                failures.add(e.toString());
                return;
            }
        }
    }
}
