package io.eve.tpcw;

import io.eve.ExecutionContext;
import io.eve.h2.H2Application;
import io.eve.h2.H2State;
import io.eve.mixer.ConflictKeys;
import io.eve.tpcw.interaction.Transactions;
import io.eve.tpcw.mixer.TpcwConflictKeys;
import java.sql.Connection;

/**
 * TPC-W on H2 as an Eve application: each request is one interaction payload, run as one eve-h2
 * transaction on the executor thread's connection, with the table-level conflict keys of Eve's TPC-W
 * mixer. Thread-safe: the executor threads call {@link #execute} concurrently.
 */
public final class TpcwApplication extends H2Application {
    private final Transactions transactions;
    private final TpcwConflictKeys keys;

    /**
     * @param state a state built by {@link TpcwDatabase#newState}
     * @param items the item count it was populated with
     * @param cartPartitions how many ways the mixer splits the cart tables
     */
    public TpcwApplication(H2State state, int items, int cartPartitions) {
        super(state);
        this.transactions = new Transactions(items);
        this.keys = new TpcwConflictKeys(cartPartitions);
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        return keys.of(payload);
    }

    @Override
    protected byte[] execute(Connection connection, byte[] payload, ExecutionContext context) throws Exception {
        return transactions.run(connection, payload, context);
    }
}
