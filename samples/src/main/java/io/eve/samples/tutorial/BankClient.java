package io.eve.samples.tutorial;

import io.eve.Reply;
import io.eve.client.ClientProgram;
import io.eve.client.EveClient;
import io.eve.config.ClusterConfig;
import java.util.List;

/**
 * The bank's command line, run by the launcher with a connected client (docs/tutorial.md, step 4):
 * {@code open NAME AMOUNT}, {@code deposit NAME AMOUNT}, {@code transfer FROM TO AMOUNT}, {@code balance
 * NAME}, {@code total}. Prints the balance (or total) the bank answered, or its error.
 */
public final class BankClient implements ClientProgram {

    @Override
    public int run(EveClient client, ClusterConfig cluster, List<String> args) {
        if (args.isEmpty()) {
            System.err.println("usage: open NAME AMOUNT | deposit NAME AMOUNT | transfer FROM TO AMOUNT"
                    + " | balance NAME | total");
            return 2;
        }
        BankRequest request = parse(args);
        boolean reads = request instanceof BankRequest.Balance || request instanceof BankRequest.Total;
        byte[] payload = BankRequest.encode(request);
        Reply reply = reads ? client.read(payload).join() : client.call(payload);
        if (reply.error()) {
            System.out.println("error: " + reply.errorText());
            return 1;
        }
        System.out.println(BankRequest.amountOf(reply.payload()));
        return 0;
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
