package io.eve.h2;

/** A replicated table: its shape and its digests. The digests are guarded by the state's commit lock. */
record TableState(TableSchema schema, Buckets buckets) {
    String key() {
        return schema.key();
    }
}
