package io.eve.verify.primarybackup;

import io.eve.protocol.Message;
import io.eve.protocol.Message.FenceAnswer;
import io.eve.protocol.Message.FenceProbe;
import io.eve.protocol.Message.FenceReport;
import io.eve.protocol.Message.FenceRequest;
import java.util.function.BiConsumer;

/**
 * A replica's side of the witness (docs/primary-backup.md, "Fencing with a witness"): asks for and gives back
 * the right to commit alone, repeating a request every heartbeat interval until the answer with its id comes
 * (the links may lose messages), and reports this replica's fence state every heartbeat interval and when
 * the witness probes. Request ids start at a random number, so an answer meant for an earlier incarnation of
 * this replica is not taken for one to this.
 *
 * <p>Not thread-safe: the replica's protocol thread calls it.
 */
public final class WitnessFence implements Fence {
    private final int self;
    private final int witness;
    private final long retryNanos;
    private final BiConsumer<Integer, Message> send;

    private long nextRequestId;
    private FenceRequest pending;
    private long pendingSentAt;
    private boolean held;
    private long heldView;
    /** The witness answered a give-back holding no grant for this node (until this node is granted one again). */
    private boolean gaveBack;

    private boolean refused;
    private FenceAnswer refusal;
    private long lastNonce;
    private long lastView;
    private long lastReportAt = Long.MIN_VALUE / 2;

    /**
     * @param retryNanos how often an unanswered request is repeated and the state reported
     * @param firstRequestId a random number
     * @param send sends a message to a node
     */
    public WitnessFence(
            int self, int witness, long retryNanos, long firstRequestId, BiConsumer<Integer, Message> send) {
        this.self = self;
        this.witness = witness;
        this.retryNanos = retryNanos;
        this.nextRequestId = firstRequestId;
        this.send = send;
    }

    @Override
    public Solo trySolo(long view, long now) {
        if (holdsSolo(view)) {
            return Solo.HELD;
        }
        if (refused) {
            // Told once; the next call asks again.
            refused = false;
            return Solo.REFUSED;
        }
        if (pending == null || !pending.solo() || pending.view() != view) {
            ask(new FenceRequest(view, true, nextRequestId++), now);
        }
        return Solo.PENDING;
    }

    @Override
    public boolean holdsSolo(long view) {
        return held && heldView == view;
    }

    @Override
    public void releaseSolo(long view, long now) {
        if (holdsSolo(view)) {
            // From now on nothing commits alone here: the witness may grant the peer once it has this.
            held = false;
            ask(new FenceRequest(view, false, nextRequestId++), now);
        }
    }

    @Override
    public boolean arbitrated() {
        return true;
    }

    @Override
    public void giveBack(long view, long now) {
        if (held) {
            // A joiner's grant of this life is one it never used (it takes over the moment it is granted):
            // asked while its peer had committed less, answered after the peer caught up. It goes back too.
            held = false;
            ask(new FenceRequest(heldView, false, nextRequestId++), now);
            return;
        }
        if (gaveBack || pending != null) {
            return; // done already, or a request on its way (the answer may ask again)
        }
        ask(new FenceRequest(view, false, nextRequestId++), now);
    }

    @Override
    public FenceAnswer refusal() {
        if (refusal == null) {
            throw new IllegalStateException("node " + self + ": no refusal from the witness to report");
        }
        return refusal;
    }

    @Override
    public void onMessage(Message message, long now) {
        if (message instanceof FenceAnswer answer) {
            onAnswer(answer, now);
        } else if (message instanceof FenceProbe probe) {
            lastNonce = probe.nonce();
            report(lastView, now);
        }
    }

    private void onAnswer(FenceAnswer answer, long now) {
        if (pending == null || answer.requestId() != pending.requestId()) {
            return; // an answer to a request this replica has since replaced, or a copy
        }
        FenceRequest request = pending;
        pending = null;
        if (!request.solo()) {
            if (!held && answer.solo() && answer.holder() == self && answer.view() != request.view()) {
                // The witness holds a grant for this node in a view it did not know of (an earlier life's):
                // nothing commits alone here, so that one goes back too.
                ask(new FenceRequest(answer.view(), false, nextRequestId++), now);
            } else if (!held && !(answer.solo() && answer.holder() == self)) {
                gaveBack = true; // the witness holds no grant for this node
            }
            return;
        }
        if (answer.solo() && answer.view() == request.view() && answer.holder() == self) {
            held = true;
            gaveBack = false;
            heldView = request.view();
        } else {
            refused = true;
            refusal = answer;
        }
    }

    @Override
    public void onTick(long view, long now) {
        lastView = view;
        if (pending != null && now - pendingSentAt >= retryNanos) {
            pendingSentAt = now;
            send.accept(witness, pending);
        }
        if (now - lastReportAt >= retryNanos) {
            report(view, now);
        }
    }

    private void report(long view, long now) {
        lastReportAt = now;
        send.accept(witness, new FenceReport(view, holdsSolo(view), lastNonce));
    }

    private void ask(FenceRequest request, long now) {
        pending = request;
        pendingSentAt = now;
        send.accept(witness, request);
    }

    @Override
    public boolean isWitness(int node) {
        return node == witness;
    }
}
