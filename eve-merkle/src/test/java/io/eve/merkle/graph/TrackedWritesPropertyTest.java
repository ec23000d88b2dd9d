package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import io.eve.merkle.graph.manual.MirrorAccount;
import io.eve.merkle.graph.manual.MirrorLedger;
import io.eve.merkle.graph.manual.MirrorWrites;
import io.eve.merkle.graph.tracked.Clerk;
import io.eve.merkle.graph.tracked.Ledger;
import io.eve.merkle.graph.tracked.LedgerAccount;
import io.eve.merkle.graph.tracked.Transfer;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random programs of field writes through every path the build step rewrites (own, superclass and
 * inner-class methods, another class, lambdas in the class and in another class, a constructor of
 * another class, new objects, the root), with failing requests and rollbacks, give the same roots as
 * the same program written with explicit {@code modify} calls on unenhanced twins of the classes. Both
 * states run in debug mode, so a write that escaped tracking, or a rollback that missed one, fails the
 * seal that follows.
 */
class TrackedWritesPropertyTest {
    private static final int ACCOUNTS = 6;

    enum Path {
        OWN_METHOD,
        SUPERCLASS_METHOD,
        OTHER_CLASS,
        INNER_CLASS,
        LAMBDA,
        OTHER_CLASS_LAMBDA,
        CONSTRUCTOR,
        NEW_OBJECT,
        PEER,
        ROOT
    }

    record Op(Path path, int account, int other, long amount, boolean fails) {}

    record Batch(List<Op> ops, boolean rollBackAndRedo) {}

    @Property(tries = 200)
    void shouldGiveTheRootsOfExplicitModifyAndRollBackExactly(@ForAll("programs") List<Batch> program) {
        ObjectGraphState tracked = ObjectGraphState.builder()
                .debug(true)
                .gcInterval(3)
                .register(Ledger.class, LedgerAccount.class)
                .build();
        ObjectGraphState manual = ObjectGraphState.builder()
                .manualTracking(true)
                .debug(true)
                .gcInterval(3)
                .register(MirrorLedger.class, MirrorAccount.class)
                .build();
        tracked.setRoot("ledger", Ledger.of(ACCOUNTS, 1_000));
        manual.setRoot("ledger", MirrorLedger.of(ACCOUNTS, 1_000));
        assertThat(tracked.seal(0)).isEqualTo(manual.seal(0));
        long seq = 0;
        for (Batch batch : program) {
            seq++;
            Digest root = runBatch(tracked, manual, batch, seq);
            if (batch.rollBackAndRedo()) {
                Digest before = tracked.rootAt(seq - 1);
                tracked.rollbackTo(seq - 1);
                manual.rollbackTo(seq - 1);
                assertThat(tracked.rootAt(seq - 1)).isEqualTo(before);
                assertThat(runBatch(tracked, manual, batch, seq)).isEqualTo(root);
            }
            tracked.markStable(seq - 1);
            manual.markStable(seq - 1);
        }
    }

    private static Digest runBatch(ObjectGraphState tracked, ObjectGraphState manual, Batch batch, long seq) {
        for (Op op : batch.ops()) {
            request(tracked, op.fails(), () -> runTracked(tracked.root("ledger", Ledger.class), op));
            request(manual, op.fails(), () -> runManual(manual, manual.root("ledger", MirrorLedger.class), op));
        }
        Digest root = tracked.seal(seq);
        assertThat(manual.seal(seq)).as("root of batch %d", seq).isEqualTo(root);
        return root;
    }

    private static void request(ObjectGraphState state, boolean fails, Runnable writes) {
        state.beginRequest();
        writes.run();
        if (fails) {
            state.abortRequest();
        } else {
            state.endRequest();
        }
    }

    private static void runTracked(Ledger ledger, Op op) {
        LedgerAccount account = ledger.account(op.account());
        long amount = op.amount();
        switch (op.path()) {
            case OWN_METHOD -> account.deposit(amount);
            case SUPERCLASS_METHOD -> account.adjust(amount);
            case OTHER_CLASS -> Clerk.credit(account, amount);
            case INNER_CLASS -> account.teller().pay(amount);
            case LAMBDA -> account.depositLater(amount).run();
            case OTHER_CLASS_LAMBDA -> Clerk.noter("note " + amount).accept(account);
            case CONSTRUCTOR -> new Transfer(account, ledger.account(op.other()), amount);
            case NEW_OBJECT -> account.link(new LedgerAccount(amount));
            case PEER -> {
                if (account.peer() != null) {
                    account.peer().deposit(amount);
                }
            }
            case ROOT -> ledger.countTransfer();
        }
    }

    private static void runManual(ObjectGraphState state, MirrorLedger ledger, Op op) {
        MirrorAccount account = ledger.account(op.account());
        long amount = op.amount();
        switch (op.path()) {
            case OWN_METHOD -> MirrorWrites.write(state, account, amount, 1, null);
            case SUPERCLASS_METHOD -> MirrorWrites.write(state, account, amount, 0, null);
            case OTHER_CLASS -> MirrorWrites.write(state, account, amount, 0, "credit " + amount);
            case INNER_CLASS -> MirrorWrites.write(state, account, amount, 2, null);
            case LAMBDA -> MirrorWrites.write(state, account, amount, 0, "lambda " + amount);
            case OTHER_CLASS_LAMBDA -> MirrorWrites.write(state, account, 0, 1, "note " + amount);
            case CONSTRUCTOR -> {
                MirrorWrites.write(state, account, -amount, 1, null);
                MirrorWrites.write(state, ledger.account(op.other()), amount, 1, null);
            }
            case NEW_OBJECT -> MirrorWrites.link(state, account, amount);
            case PEER -> {
                MirrorAccount peer = MirrorWrites.peer(account);
                if (peer != null) {
                    MirrorWrites.write(state, peer, amount, 1, null);
                }
            }
            case ROOT -> MirrorWrites.countTransfer(state, ledger);
        }
    }

    @Provide
    Arbitrary<List<Batch>> programs() {
        Arbitrary<Op> ops = Combinators.combine(
                        Arbitraries.of(Path.class),
                        Arbitraries.integers().between(0, ACCOUNTS - 1),
                        Arbitraries.integers().between(0, ACCOUNTS - 1),
                        Arbitraries.longs().between(1, 500),
                        Arbitraries.integers().between(0, 4).map(i -> i == 0))
                .as(Op::new);
        Arbitrary<Batch> batches = Combinators.combine(
                        ops.list().ofMinSize(0).ofMaxSize(12),
                        Arbitraries.integers().between(0, 3).map(i -> i == 0))
                .as(Batch::new);
        return batches.list().ofMinSize(1).ofMaxSize(8);
    }
}
