package io.eve.samples.tutorial;

import io.eve.client.ApplicationErrorException;
import io.eve.client.ClientProgram;
import io.eve.client.EveClient;
import io.eve.client.ServiceClient;
import io.eve.config.ClusterConfig;
import java.util.List;
import java.util.concurrent.CompletionException;

/**
 * The bank's command line, run by the launcher with a connected client (docs/tutorial.md, step 5):
 * {@code open NAME AMOUNT}, {@code deposit NAME AMOUNT}, {@code transfer FROM TO AMOUNT}, {@code balance
 * NAME}, {@code total}. Prints the balance (or total) the bank answered, or its error code and message.
 */
public final class BankClient implements ClientProgram {

    @Override
    public int run(EveClient client, ClusterConfig cluster, List<String> args) {
        if (args.isEmpty()) {
            System.err.println("usage: open NAME AMOUNT | deposit NAME AMOUNT | transfer FROM TO AMOUNT"
                    + " | balance NAME | total");
            return 2;
        }
        ServiceClient<BankRequest, Long> bank = new ServiceClient<>(client, BankRequest.CODEC);
        BankRequest request = parse(args);
        boolean reads = request instanceof BankRequest.Balance || request instanceof BankRequest.Total;
        try {
            long amount = reads ? bank.read(request).join() : bank.invoke(request);
            System.out.println(amount);
            return 0;
        } catch (ApplicationErrorException e) {
            return refused(e);
        } catch (CompletionException e) {
            if (e.getCause() instanceof ApplicationErrorException refusal) {
                return refused(refusal);
            }
            throw e;
        }
    }

    private static int refused(ApplicationErrorException e) {
        System.out.println("error " + e.code() + ": " + e.message());
        return 1;
    }

    static BankRequest parse(List<String> args) {
        String operation = args.get(0);
        try {
            return switch (operation) {
                case "open" -> new BankRequest.Open(args.get(1), Long.parseLong(args.get(2)));
                case "deposit" -> new BankRequest.Deposit(args.get(1), Long.parseLong(args.get(2)));
                case "transfer" -> new BankRequest.Transfer(args.get(1), args.get(2), Long.parseLong(args.get(3)));
                case "balance" -> new BankRequest.Balance(args.get(1));
                case "total" -> new BankRequest.Total();
                default -> throw new IllegalArgumentException("unknown operation '" + operation + "'");
            };
        } catch (IndexOutOfBoundsException | NumberFormatException e) {
            throw new IllegalArgumentException("bad arguments for '" + operation + "': " + args, e);
        }
    }
}
