package io.eve.verify.primarybackup;

import io.eve.protocol.Message;

/**
 * The fence of a pair without a witness: every request to commit alone is granted at once, so safety rests
 * on timing. A pause or a partition longer than the failure timeout may lose acknowledged writes
 * (docs/primary-backup.md, "Without a witness").
 */
public final class TimingFence implements Fence {
    private boolean held;
    private long heldView;

    @Override
    public Solo trySolo(long view, long now) {
        held = true;
        heldView = view;
        return Solo.HELD;
    }

    @Override
    public boolean holdsSolo(long view) {
        return held && heldView == view;
    }

    @Override
    public void releaseSolo(long view, long now) {
        if (holdsSolo(view)) {
            held = false;
        }
    }

    @Override
    public boolean arbitrated() {
        return false;
    }

    @Override
    public void giveBack(long view, long now) {
        // Nothing outlives this object: a restarted replica's timing fence holds no grant of an earlier life.
    }

    @Override
    public Message.FenceAnswer refusal() {
        throw new IllegalStateException("the timing fence refuses nothing");
    }

    @Override
    public void onMessage(Message message, long now) {
        // No witness: nothing to hear.
    }

    @Override
    public void onTick(long view, long now) {
        // Nothing to repeat or report.
    }

    @Override
    public boolean isWitness(int node) {
        return false;
    }
}
