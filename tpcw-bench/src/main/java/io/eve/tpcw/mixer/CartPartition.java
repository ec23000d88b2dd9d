package io.eve.tpcw.mixer;

/**
 * A conflict key for one partition of a cart table (Eve's TPC-W mixer split the cart tables ten ways):
 * carts whose ids fall in different partitions never conflict.
 *
 * @param table {@code SHOPPING_CART} or {@code SHOPPING_CART_LINE}
 * @param partition the cart id modulo the partition count
 */
public record CartPartition(String table, int partition) {
    @Override
    public String toString() {
        return table + "#" + partition;
    }
}
