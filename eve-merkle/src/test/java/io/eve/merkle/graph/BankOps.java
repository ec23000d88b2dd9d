package io.eve.merkle.graph;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Random batches of operations on a {@link Bank}, in which the operations of one batch touch disjoint
 * accounts (what the mixer guarantees), executed by any number of threads in any order.
 */
final class BankOps {
    static final int SLOTS = 24;

    sealed interface Op permits Deposit, Create, Drop, Link {
        /** The account slots the operation reads or writes. */
        int[] slots();

        void run(ObjectGraphState state, Bank bank);
    }

    record Deposit(int slot, long amount) implements Op {
        public int[] slots() {
            return new int[] {slot};
        }

        public void run(ObjectGraphState state, Bank bank) {
            Account account = bank.accounts[slot];
            if (account != null) {
                state.modify(account);
                account.balance += amount;
                account.version++;
            }
        }
    }

    record Create(int slot, String owner, int memoSize) implements Op {
        public int[] slots() {
            return new int[] {slot};
        }

        public void run(ObjectGraphState state, Bank bank) {
            Account account = new Account(owner, memoSize);
            account.memo = new byte[memoSize];
            for (int i = 0; i < memoSize; i++) {
                account.memo[i] = (byte) (i * 31 + owner.length());
            }
            account.next = new Account(owner + "-shadow", -1);
            state.modify(bank);
            bank.accounts[slot] = account;
        }
    }

    record Drop(int slot) implements Op {
        public int[] slots() {
            return new int[] {slot};
        }

        public void run(ObjectGraphState state, Bank bank) {
            state.modify(bank);
            bank.accounts[slot] = null;
        }
    }

    record Link(int from, int to) implements Op {
        public int[] slots() {
            return new int[] {from, to};
        }

        public void run(ObjectGraphState state, Bank bank) {
            Account source = bank.accounts[from];
            if (source != null) {
                state.modify(source);
                source.next = bank.accounts[to];
            }
        }
    }

    private BankOps() {}

    static Arbitrary<Op> ops() {
        Arbitrary<Integer> slot = Arbitraries.integers().between(0, SLOTS - 1);
        return Arbitraries.oneOf(
                Combinators.combine(slot, Arbitraries.longs().between(-50, 50)).as(Deposit::new),
                Combinators.combine(
                                slot,
                                Arbitraries.strings().alpha().ofMaxLength(6),
                                Arbitraries.integers().between(0, 300))
                        .as(Create::new),
                slot.map(Drop::new),
                Combinators.combine(slot, slot).filter((a, b) -> !a.equals(b)).as(Link::new));
    }

    /** Batches of operations on disjoint slots. */
    static Arbitrary<List<List<Op>>> histories() {
        return ops().list()
                .ofMaxSize(16)
                .map(BankOps::disjoint)
                .list()
                .ofMinSize(1)
                .ofMaxSize(12);
    }

    static List<Op> disjoint(List<Op> ops) {
        BitSet used = new BitSet();
        List<Op> kept = new ArrayList<>();
        for (Op op : ops) {
            boolean free = true;
            for (int s : op.slots()) {
                free &= !used.get(s);
            }
            if (free) {
                for (int s : op.slots()) {
                    used.set(s);
                }
                kept.add(op);
            }
        }
        return kept;
    }

    static ObjectGraphState newState(boolean debug, int gcInterval) {
        ObjectGraphState state = ObjectGraphState.builder()
                .manualTracking(true)
                .debug(debug)
                .gcInterval(gcInterval)
                .register(Account.class, Bank.class)
                .build();
        Bank bank = new Bank(SLOTS);
        for (int i = 0; i < SLOTS; i += 2) {
            bank.accounts[i] = new Account("init" + i, i);
        }
        state.setRoot("bank", bank);
        state.seal(0);
        return state;
    }

    /** Runs one batch on {@code pool} (or inline when {@code null}), in the given order. */
    static void runBatch(ObjectGraphState state, List<Op> ops, ExecutorService pool) throws Exception {
        Bank bank = state.root("bank", Bank.class);
        if (pool == null) {
            for (Op op : ops) {
                op.run(state, bank);
            }
            return;
        }
        List<Future<?>> futures = new ArrayList<>();
        for (Op op : ops) {
            futures.add(pool.submit(() -> op.run(state, bank)));
        }
        for (Future<?> future : futures) {
            future.get();
        }
    }
}
