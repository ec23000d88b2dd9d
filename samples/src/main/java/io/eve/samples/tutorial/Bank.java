package io.eve.samples.tutorial;

import io.eve.ApplicationException;
import io.eve.ExecutionContext;
import io.eve.TypedService;
import io.eve.config.ClusterConfig;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.mixer.ConflictKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * The tutorial's bank (docs/tutorial.md): accounts with balances, deposits, transfers, balances and an
 * audited total, replicated by Eve. A request that cannot be carried out fails as a whole with a coded error
 * a client can match ({@value #NO_SUCH_ACCOUNT}, {@value #ALREADY_OPEN}, {@value #INSUFFICIENT_FUNDS}), and
 * no balance changes.
 *
 * <p>Conflict keys: each account belongs to one of {@value #BUCKETS} buckets; a request that changes an account
 * writes its bucket, a balance reads it, and the total reads every bucket. So deposits and transfers on
 * different buckets run in parallel, and a total waits for the writes of its batch that came before it.
 *
 * <p>Settings (the cluster configuration's {@code app.} keys): {@code app.accounts} accounts named {@code a0},
 * {@code a1}, ... opened at start with {@code app.initial-balance} each (default: none).
 */
public final class Bank extends TypedService<BankRequest, Long> {
    /** The error code of a request naming an account that is not open. */
    public static final String NO_SUCH_ACCOUNT = "no-such-account";
    /** The error code of opening an account twice. */
    public static final String ALREADY_OPEN = "already-open";
    /** The error code of a transfer larger than the payer's balance. */
    public static final String INSUFFICIENT_FUNDS = "insufficient-funds";

    static final int BUCKETS = 64;
    private static final String ROOT = "bank.accounts";

    private final ObjectGraphState state;

    /** An empty bank. */
    public Bank() {
        this(0, 0);
    }

    /** The bank the configuration's {@code app.accounts} and {@code app.initial-balance} describe. */
    public Bank(ClusterConfig cluster) {
        this((int) cluster.app("accounts", 0L), cluster.app("initial-balance", 0L));
    }

    /** A bank with {@code accounts} accounts {@code a0, a1, ...} holding {@code balance} each. */
    public Bank(int accounts, long balance) {
        super(BankRequest.CODEC);
        state = ObjectGraphState.builder().register(Account.class).build();
        ReplicatedMap<String, Account> all = new ReplicatedMap<>();
        for (int i = 0; i < accounts; i++) {
            all.put("a" + i, new Account(balance));
        }
        state.setRoot(ROOT, all);
    }

    @Override
    public ObjectGraphState state() {
        return state;
    }

    @Override
    public ConflictKeys conflictKeys(BankRequest request) {
        if (request instanceof BankRequest.Open open) {
            return ConflictKeys.writing(bucket(open.account()));
        } else if (request instanceof BankRequest.Deposit deposit) {
            return ConflictKeys.writing(bucket(deposit.account()));
        } else if (request instanceof BankRequest.Transfer transfer) {
            return ConflictKeys.writing(bucket(transfer.from()), bucket(transfer.to()));
        } else if (request instanceof BankRequest.Balance balance) {
            return ConflictKeys.reading(bucket(balance.account()));
        }
        List<Object> every = new ArrayList<>(BUCKETS);
        for (int i = 0; i < BUCKETS; i++) {
            every.add(new Bucket(i));
        }
        return ConflictKeys.of(every, List.of());
    }

    @Override
    public Long execute(BankRequest request, ExecutionContext context) {
        ReplicatedMap<String, Account> accounts = accounts();
        if (request instanceof BankRequest.Open open) {
            if (accounts.containsKey(open.account())) {
                throw new ApplicationException(ALREADY_OPEN, "account " + open.account() + " is already open");
            }
            accounts.put(open.account(), new Account(open.amount()));
            return open.amount();
        } else if (request instanceof BankRequest.Deposit deposit) {
            Account account = account(accounts, deposit.account());
            account.balance = Math.addExact(account.balance, deposit.amount());
            return account.balance;
        } else if (request instanceof BankRequest.Transfer transfer) {
            return transfer(accounts, transfer);
        } else if (request instanceof BankRequest.Balance balance) {
            return account(accounts, balance.account()).balance;
        }
        long[] total = {0};
        accounts.forEach((name, account) -> total[0] = Math.addExact(total[0], account.balance));
        return total[0];
    }

    /**
     * Moves the money and answers the payer's new balance. It debits before it looks up the payee: when the
     * payee does not exist the request throws after a write, and the framework undoes the debit (a failed
     * request leaves no trace, docs/state.md).
     */
    private long transfer(ReplicatedMap<String, Account> accounts, BankRequest.Transfer transfer) {
        Account from = account(accounts, transfer.from());
        if (from.balance < transfer.amount()) {
            throw new ApplicationException(
                    INSUFFICIENT_FUNDS,
                    transfer.from() + " holds " + from.balance + ", the transfer needs " + transfer.amount());
        }
        from.balance -= transfer.amount();
        Account to = account(accounts, transfer.to());
        to.balance = Math.addExact(to.balance, transfer.amount());
        return from.balance;
    }

    private ReplicatedMap<String, Account> accounts() {
        // Looked up on every request: a state transfer may install new instances, the root names the current ones.
        @SuppressWarnings("unchecked")
        ReplicatedMap<String, Account> accounts = state.root(ROOT, ReplicatedMap.class);
        return accounts;
    }

    private static Account account(ReplicatedMap<String, Account> accounts, String name) {
        Account account = accounts.get(name);
        if (account == null) {
            throw new ApplicationException(NO_SUCH_ACCOUNT, "no account " + name);
        }
        return account;
    }

    private static Bucket bucket(String account) {
        return new Bucket(Math.floorMod(account.hashCode(), BUCKETS));
    }

    /** A conflict key: one bucket of accounts (String.hashCode is the same on every JVM). */
    private record Bucket(int index) {
        @Override
        public String toString() {
            return "bank:" + index;
        }
    }
}
