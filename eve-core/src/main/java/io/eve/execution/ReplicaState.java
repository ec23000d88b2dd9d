package io.eve.execution;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.ObjectDigest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.VersionedState;
import io.eve.merkle.codec.BufferSink;
import io.eve.merkle.codec.HashSink;
import io.eve.merkle.codec.MalformedInputException;
import io.eve.merkle.codec.Source;
import io.eve.merkle.graph.ObjectGraphState;
import java.util.List;
import java.util.Optional;

/**
 * Everything a replica seals, rolls back and transfers: the application's state and the framework's own
 * (the reply cache), versioned together. Its root is SHA-256(0x20 || application root || framework
 * root); a delta carries both parts and both component roots, which the combined root binds.
 *
 * <p>Called by the execution stage's thread only, except {@link #replies()}, used by executor threads.
 */
public final class ReplicaState implements VersionedState {
    private final VersionedState application;
    private final ObjectGraphState framework;
    private final ReplyCache replies;

    public ReplicaState(VersionedState application) {
        this.application = application;
        this.framework = ObjectGraphState.builder().gcInterval(0).build();
        this.replies = new ReplyCache(framework);
        framework.seal(0);
        if (application.sealedSeq() == NOTHING) {
            application.seal(0);
        } else if (application.sealedSeq() != 0) {
            throw new IllegalArgumentException(
                    "the application state must start at version 0 (or unsealed), it is at " + application.sealedSeq());
        }
    }

    ReplyCache replies() {
        return replies;
    }

    public VersionedState application() {
        return application;
    }

    @Override
    public Digest seal(long seq) {
        return combine(application.seal(seq), framework.seal(seq));
    }

    @Override
    public void rollbackTo(long seq) {
        application.rollbackTo(seq);
        framework.rollbackTo(seq);
    }

    @Override
    public void markStable(long seq) {
        application.markStable(seq);
        framework.markStable(seq);
    }

    @Override
    public boolean hasUnsealedWrites() {
        return application.hasUnsealedWrites() || framework.hasUnsealedWrites();
    }

    /** Only the application's state has requests: the reply cache is written at seal, by the stage thread. */
    @Override
    public void beginRequest() {
        application.beginRequest();
    }

    @Override
    public void endRequest() {
        application.endRequest();
    }

    @Override
    public void abortRequest() {
        application.abortRequest();
    }

    /** Only the application's state overlaps: the reply cache is written at seal, by the stage thread. */
    @Override
    public boolean canOverlap(long seq) {
        return application.canOverlap(seq);
    }

    @Override
    public void openNext(long seq) {
        application.openNext(seq);
    }

    @Override
    public void discardNext() {
        application.discardNext();
    }

    @Override
    public boolean takeCrossBatchConflict() {
        return application.takeCrossBatchConflict();
    }

    @Override
    public long sealedSeq() {
        return framework.sealedSeq();
    }

    @Override
    public long stableSeq() {
        return framework.stableSeq();
    }

    @Override
    public Digest rootAt(long seq) {
        return combine(application.rootAt(seq), framework.rootAt(seq));
    }

    /**
     * The application's objects only: the reply cache changes exactly when the replies do, which the tokens
     * already compare (their reply digests).
     */
    @Override
    public Optional<List<ObjectDigest>> objectDigests(long seq) {
        return application.objectDigests(seq);
    }

    @Override
    public StateDelta deltaSince(long sinceSeq, long targetSeq) {
        StateDelta app = application.deltaSince(sinceSeq, targetSeq);
        StateDelta own = framework.deltaSince(sinceSeq, targetSeq);
        BufferSink sink = new BufferSink(app.size() + own.size() + 80);
        writePart(sink, application.rootAt(app.targetSeq()), app.payload());
        writePart(sink, framework.rootAt(own.targetSeq()), own.payload());
        return new StateDelta(sinceSeq, targetSeq, sink.toByteArray());
    }

    @Override
    public ApplyResult apply(StateDelta delta, long expectedSeq, Digest expectedRoot) {
        Digest appRoot;
        byte[] appPayload;
        Digest ownRoot;
        byte[] ownPayload;
        try {
            Source source = new Source(delta.payload());
            appRoot = Digest.of(source.getByteArray());
            appPayload = source.getByteArray();
            ownRoot = Digest.of(source.getByteArray());
            ownPayload = source.getByteArray();
        } catch (MalformedInputException | IllegalArgumentException e) {
            return ApplyResult.rejected(null, "malformed replica delta: " + e.getMessage());
        }
        if (!combine(appRoot, ownRoot).equals(expectedRoot)) {
            return ApplyResult.rejected(null, "the delta's component roots do not combine to " + expectedRoot);
        }
        long base = delta.baseSeq();
        ApplyResult app = application.apply(new StateDelta(base, delta.targetSeq(), appPayload), expectedSeq, appRoot);
        if (!app.applied()) {
            return app;
        }
        ApplyResult own = framework.apply(new StateDelta(base, delta.targetSeq(), ownPayload), expectedSeq, ownRoot);
        if (!own.applied()) {
            application.rollbackTo(base);
            return own;
        }
        return ApplyResult.applied(expectedRoot);
    }

    private static void writePart(BufferSink sink, Digest root, byte[] payload) {
        sink.putByteArray(root.toByteArray());
        sink.putByteArray(payload);
    }

    static Digest combine(Digest applicationRoot, Digest frameworkRoot) {
        HashSink sink = HashSink.forCurrentThread();
        sink.putByte(0x20);
        sink.putDigest(applicationRoot);
        sink.putDigest(frameworkRoot);
        return sink.finish();
    }
}
