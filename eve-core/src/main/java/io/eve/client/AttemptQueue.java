package io.eve.client;

/**
 * The attempts of a {@link ClientSession} in the order their timeouts fall due: a growable ring of (request
 * number, due time) pairs, added in time order because every attempt waits the same timeout. An entry whose
 * request was answered or sent again since is left in place and skipped when it comes up, so answering a
 * request costs nothing here. Not thread-safe.
 */
final class AttemptQueue {
    private long[] seqs = new long[64];
    private long[] times = new long[64];
    private int head;
    private int size;

    /** Adds an attempt due at {@code time}, no earlier than any attempt already queued. */
    void add(long seq, long time) {
        if (size == seqs.length) {
            grow();
        }
        int at = (head + size) & (seqs.length - 1);
        seqs[at] = seq;
        times[at] = time;
        size++;
    }

    boolean isEmpty() {
        return size == 0;
    }

    long firstSeq() {
        return seqs[head];
    }

    long firstTime() {
        return times[head];
    }

    void removeFirst() {
        head = (head + 1) & (seqs.length - 1);
        size--;
    }

    int size() {
        return size;
    }

    private void grow() {
        long[] moreSeqs = new long[seqs.length * 2];
        long[] moreTimes = new long[times.length * 2];
        for (int i = 0; i < size; i++) {
            int from = (head + i) & (seqs.length - 1);
            moreSeqs[i] = seqs[from];
            moreTimes[i] = times[from];
        }
        seqs = moreSeqs;
        times = moreTimes;
        head = 0;
    }
}
