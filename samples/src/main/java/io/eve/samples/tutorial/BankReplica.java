package io.eve.samples.tutorial;

import io.eve.Replica;
import io.eve.server.EveReplica;
import java.nio.file.Path;

/**
 * One replica of the bank in a program of its own (docs/tutorial.md, step 3): {@code BankReplica
 * <config> <node>}. Everything else comes from the configuration file.
 */
public final class BankReplica {
    private BankReplica() {}

    public static void main(String[] args) throws InterruptedException {
        Replica replica = EveReplica.builder()
                .config(Path.of(args[0]))
                .node(Integer.parseInt(args[1]))
                .application(Bank::new)
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(replica::close));
        System.out.println(replica.status().toJson());
        Thread.currentThread().join();
    }
}
