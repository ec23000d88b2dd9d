package io.eve.samples.tutorial;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.merkle.graph.StateObject;
import io.eve.mixer.ConflictKeys;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The ledger of issue 22 that forgets {@code modify}: its account class is not enhanced (the samples'
 * test classes do not go through the build step), so it runs in manual tracking with debug mode on, and
 * deposits write the balance with no {@code modify} call. "deposit" is an account and an amount; an
 * empty payload asks for the total.
 */
final class LeakyLedger implements Application {
    @Replicated(name = "leaky.Account")
    static final class Account extends StateObject {
        long balance;

        Account() {}
    }

    private final ObjectGraphState state = ObjectGraphState.builder()
            .manualTracking(true)
            .debug(true)
            .register(Account.class)
            .build();
    private final int accounts;

    LeakyLedger(int accounts, long opening) {
        this.accounts = accounts;
        ReplicatedMap<Long, Account> all = new ReplicatedMap<>();
        for (long i = 0; i < accounts; i++) {
            Account account = new Account();
            account.balance = opening;
            all.put(i, account);
        }
        state.setRoot("accounts", all);
    }

    static byte[] deposit(long account, long amount) {
        return ByteBuffer.allocate(16).putLong(account).putLong(amount).array();
    }

    static byte[] total() {
        return new byte[0];
    }

    @Override
    public VersionedState state() {
        return state;
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        if (payload.length == 0) {
            List<Object> every = new ArrayList<>();
            for (long i = 0; i < accounts; i++) {
                every.add(i);
            }
            return ConflictKeys.of(every, List.of());
        }
        return ConflictKeys.writing(ByteBuffer.wrap(payload).getLong());
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) {
        ReplicatedMap<Long, Account> all = accounts();
        if (payload.length == 0) {
            long[] total = {0};
            all.forEach((id, account) -> total[0] += account.balance);
            return ByteBuffer.allocate(8).putLong(total[0]).array();
        }
        ByteBuffer request = ByteBuffer.wrap(payload);
        Account account = all.get(request.getLong());
        account.balance += request.getLong(); // no modify: the write the debug mode must catch
        return ByteBuffer.allocate(8).putLong(account.balance).array();
    }

    @SuppressWarnings("unchecked")
    private ReplicatedMap<Long, Account> accounts() {
        return state.root("accounts", ReplicatedMap.class);
    }
}
