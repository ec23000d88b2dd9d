package io.eve.h2;

import java.sql.Connection;
import java.sql.SQLException;
import org.h2.api.Trigger;

/**
 * The row triggers {@link H2State} installs on every replicated table. Not for applications: public only
 * because H2 instantiates it by name. Each table gets two instances:
 *
 * <ul>
 *   <li>BEFORE INSERT, UPDATE, DELETE, for each row: refuses a write made outside an eve-h2
 *       transaction, which would change the database without changing its digest. It has to be a
 *       separate trigger: H2 ignores what a trigger that also fires on ROLLBACK throws.
 *   <li>AFTER INSERT, UPDATE, DELETE, ROLLBACK, for each row: reports the change (and, when a statement
 *       or transaction is undone, the inverse change) to the thread's open eve-h2 transaction. A failure
 *       here marks the transaction so it cannot commit.
 * </ul>
 *
 * <p>H2 calls {@link #fire} on the thread executing the statement (or rolling back).
 */
public final class RowTrigger implements Trigger {
    private String key;
    private boolean guard;

    /** Called by H2 when the trigger is created or the database opened. */
    @Override
    public void init(
            Connection conn, String schemaName, String triggerName, String tableName, boolean before, int type) {
        this.key = schemaName + "." + tableName;
        this.guard = before;
    }

    @Override
    public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
        Session session = Session.current();
        ChangeBuffer buffer = session == null ? null : session.buffer();
        if (buffer == null) {
            if (guard) {
                throw new SQLException("table " + key + " is replicated by eve-h2; write it only inside"
                        + " H2State.execute or H2State.load, which keep its digest and undo log");
            }
            return;
        }
        if (guard) {
            return;
        }
        TableState table = session.state().table(key);
        try {
            if (table == null) {
                throw new SQLException("table " + key + " is not replicated by the state of the open transaction");
            }
            buffer.onRow(table, oldRow, newRow);
        } catch (SQLException | RuntimeException e) {
            buffer.fail(e);
            throw e;
        }
    }
}
