package io.eve.rdma.ring;

import io.eve.rdma.OneSidedFabric;
import io.eve.rdma.RemoteRegion;
import io.eve.rdma.memory.InMemoryFabric;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** One ring between node 1 (writer) and node 2 (reader) over an in-memory fabric, for the ring tests. */
final class RingHarness {
    static final int WRITER = 1;
    static final int READER = 2;

    final InMemoryFabric fabric = new InMemoryFabric();
    final RingLayout layout;
    final OneSidedFabric writerNode = fabric.node(WRITER);
    final OneSidedFabric readerNode = fabric.node(READER);
    final List<Long> seqs = new ArrayList<>();
    final List<byte[]> payloads = new ArrayList<>();
    ByteBuffer readerRegion;
    ByteBuffer writerRegion;
    RingReader reader;
    RingWriter writer;
    RemoteRegion creditPath;

    RingHarness(int ringBytes, int maxPayload) {
        this.layout = new RingLayout(ringBytes, maxPayload);
        writerRegion = layout.newRegion();
        creditPath = readerNode.open(WRITER, writerNode.register(READER, writerRegion));
        connect();
    }

    /** A fresh region at the reader and a fresh writer into it (set-up, or recovery after a crash). */
    void connect() {
        readerRegion = layout.newRegion();
        RemoteRegion ringPath = writerNode.open(READER, readerNode.register(WRITER, readerRegion));
        reader = new RingReader(layout, readerRegion);
        writer = new RingWriter(layout, ringPath, writerRegion);
    }

    Poll poll() {
        return reader.poll((seq, payload) -> {
            seqs.add(seq);
            payloads.add(payload);
        });
    }

    /**
     * Polls until the ring is empty or stuck, then publishes credit as an idle reader does on its refresh
     * tick (always rewriting it, since a deferred older record may have overwritten a newer one).
     */
    Poll drain() {
        Poll result;
        do {
            result = poll();
        } while (result == Poll.DELIVERED);
        reader.publishCredit(creditPath, seqs.isEmpty() ? 0 : seqs.get(seqs.size() - 1), true, true);
        return result;
    }

    static byte[] payload(long seq, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (seq * 31 + i);
        }
        return bytes;
    }
}
