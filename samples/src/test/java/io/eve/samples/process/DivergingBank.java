package io.eve.samples.process;

import io.eve.ExecutionContext;
import io.eve.TypedService;
import io.eve.config.ClusterConfig;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.mixer.ConflictKeys;
import io.eve.samples.tutorial.Bank;
import io.eve.samples.tutorial.BankRequest;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The tutorial's bank (tracked writes, no {@code modify}) with one planted fault, for a replica process
 * ({@code --app io.eve.samples.process.DivergingBank}): the first time this JVM executes a deposit of
 * exactly {@link #MARKER}, it deposits the marker plus a random amount instead. Each replica adds a
 * different amount, so their tokens differ, the batch rolls back and runs again, and this time every
 * replica deposits the marker: if the rollback missed a tracked write, the extra money stays and the
 * audited total shows it.
 */
public final class DivergingBank extends TypedService<BankRequest, Long> {
    /** The deposit amount that triggers the fault, once per JVM. */
    static final long MARKER = 7_777;

    private static final AtomicBoolean FIRED = new AtomicBoolean();

    private final Bank bank;

    /** The bank the configuration's {@code app.} settings describe (see {@link Bank#Bank(ClusterConfig)}). */
    public DivergingBank(ClusterConfig cluster) {
        super(BankRequest.CODEC);
        this.bank = new Bank(cluster);
    }

    @Override
    public ObjectGraphState state() {
        return bank.state();
    }

    @Override
    public ConflictKeys conflictKeys(BankRequest request) {
        return bank.conflictKeys(request);
    }

    @Override
    public Long execute(BankRequest request, ExecutionContext context) {
        if (request instanceof BankRequest.Deposit deposit
                && deposit.amount() == MARKER
                && FIRED.compareAndSet(false, true)) {
            long extra = ThreadLocalRandom.current().nextLong(1, 1_000_000);
            return bank.execute(new BankRequest.Deposit(deposit.account(), MARKER + extra), context);
        }
        return bank.execute(request, context);
    }
}
