package io.eve.execution;

import io.eve.Application;
import io.eve.ApplicationException;
import io.eve.PreparedRequest;
import io.eve.Request;
import io.eve.batch.Batch;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The requests of recent batches as the application prepared them ({@link Application#prepare}), so each
 * payload is decoded once however often its batch is planned (when offered, again to run sequentially)
 * or executed (again after a rollback). Kept by batch number until the batch is stable; a different batch
 * under the same number is prepared afresh.
 *
 * <p>Used by the execution stage's thread only; the prepared requests it hands out go to the executor
 * threads with the plan.
 */
final class DecodedBatches {
    /** Batches kept at most when none becomes stable (a stage driven without verification). */
    static final int MAX_BATCHES = 2 * ExecutionStage.MAX_OFFERS;

    private final Application application;
    private final NavigableMap<Long, Decoded> batches = new TreeMap<>();

    private record Decoded(Batch batch, List<PreparedRequest> requests) {}

    DecodedBatches(Application application) {
        this.application = application;
    }

    /** The prepared requests of {@code batch}, in order; the ones prepared before if it is the same batch. */
    List<PreparedRequest> of(Batch batch) {
        Decoded known = batches.get(batch.seq());
        if (known != null && (known.batch() == batch || known.batch().equals(batch))) {
            return known.requests();
        }
        List<PreparedRequest> requests =
                batch.requests().stream().map(this::prepare).toList();
        batches.put(batch.seq(), new Decoded(batch, requests));
        while (batches.size() > MAX_BATCHES) {
            batches.pollFirstEntry();
        }
        return requests;
    }

    /** Forgets the batches up to {@code seq}: they are stable and never run again. */
    void discardThrough(long seq) {
        batches.headMap(seq, true).clear();
    }

    /**
     * {@code request} as the application prepared it; if {@link Application#prepare} threw, a request
     * that conflicts with every other and answers with the reason.
     */
    PreparedRequest prepare(Request request) {
        try {
            return application.prepare(request.payload());
        } catch (ApplicationException e) {
            return new Unprepared(e);
        } catch (RuntimeException e) {
            return new Unprepared(new ApplicationException(
                    ApplicationException.UNDECODABLE,
                    "the application could not prepare a request of " + request.payload().length + " bytes: "
                            + e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage())));
        }
    }
}
