package io.eve.samples.statedemo;

/** Deterministic value contents for the demo. */
final class Values {
    private Values() {}

    static byte[] initial(long id, int size) {
        byte[] value = new byte[size];
        for (int i = 0; i < size; i++) {
            value[i] = (byte) (id * 131 + i);
        }
        return value;
    }

    /** The value a write of request {@code request} in batch {@code seq} stores. */
    static byte[] written(long seq, int request, int size) {
        byte[] value = new byte[size];
        for (int i = 0; i < size; i++) {
            value[i] = (byte) (seq * 17 + request * 7 + i);
        }
        return value;
    }
}
