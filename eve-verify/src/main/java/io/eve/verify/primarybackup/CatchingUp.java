package io.eve.verify.primarybackup;

import io.eve.protocol.Message.StateTransfer;
import java.util.Optional;

/**
 * A backup waiting for the primary's state: it executes nothing until a state transfer is installed. Either
 * it is <em>joining</em> (it restarted, or was a primary that learned of a later view): it holds no more than
 * its last committed batch, so it may not take over on silence; or it <em>resyncs</em> (it missed how the
 * primary moved on, or was told to take the primary's state): a backup still, which takes over if the primary
 * falls silent.
 *
 * <p>At most one transfer is installed at a time. One that comes while another is being installed
 * <em>overtakes</em> it: the furthest such transfer of the same view and epoch is kept, since the primary does
 * not send again the batches it carries (it is installed if the first is refused, or asked for again after).
 */
final class CatchingUp {
    private boolean joining;
    private Optional<StateTransfer> installing = Optional.empty();
    private Optional<StateTransfer> overtaking = Optional.empty();

    private CatchingUp(boolean joining) {
        this.joining = joining;
    }

    static CatchingUp joining() {
        return new CatchingUp(true);
    }

    static CatchingUp resyncing() {
        return new CatchingUp(false);
    }

    boolean isJoining() {
        return joining;
    }

    /** This replica learned of a later view than its own: it joins its peer's. */
    void markJoining() {
        joining = true;
    }

    boolean isInstalling() {
        return installing.isPresent();
    }

    boolean isInstalling(StateTransfer transfer) {
        return installing.isPresent() && installing.get() == transfer;
    }

    /** The stage installs {@code transfer} now; what overtook an earlier one no longer matters. */
    void install(StateTransfer transfer) {
        installing = Optional.of(transfer);
        overtaking = Optional.empty();
    }

    /** The stage finished installing (or refused) the transfer. */
    void installed() {
        installing = Optional.empty();
    }

    /** {@code transfer} came while another of the same view and epoch is being installed. */
    void overtakenBy(StateTransfer transfer) {
        if (overtaking.isEmpty()
                || transfer.token().seq() >= overtaking.get().token().seq()) {
            overtaking = Optional.of(transfer);
        }
    }

    /** The furthest transfer that came while another was being installed, and forgets it. */
    Optional<StateTransfer> takeOvertaking() {
        Optional<StateTransfer> taken = overtaking;
        overtaking = Optional.empty();
        return taken;
    }
}
