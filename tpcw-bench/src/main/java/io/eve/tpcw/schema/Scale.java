package io.eve.tpcw.schema;

/**
 * The size of a TPC-W database (spec clause 4.3): the item count (1,000, 10,000, ... in the spec) and the
 * number of emulated browsers it is populated for, optionally scaled down for quick runs. Immutable.
 *
 * @param items rows of ITEM
 * @param ebs emulated browsers the population is for
 * @param customerScale fraction of the spec's 2880 customers per EB to create (1.0 is the spec)
 */
public record Scale(int items, int ebs, double customerScale) {
    /** The spec's countries. */
    public static final int COUNTRIES = 92;

    public Scale {
        if (items < 20) {
            throw new IllegalArgumentException("items must be at least 20, got " + items);
        }
        if (ebs < 1) {
            throw new IllegalArgumentException("ebs must be at least 1, got " + ebs);
        }
        if (!(customerScale > 0 && customerScale <= 1)) {
            throw new IllegalArgumentException("customerScale must be in (0, 1], got " + customerScale);
        }
    }

    /** 2880 per EB, times the scale, at least 10. */
    public int customers() {
        return Math.max(10, (int) Math.round(2880.0 * ebs * customerScale));
    }

    /** Two per customer. */
    public int addresses() {
        return 2 * customers();
    }

    /** 0.9 per customer. */
    public int orders() {
        return (int) (0.9 * customers());
    }

    /** One per four items. */
    public int authors() {
        return Math.max(1, items / 4);
    }
}
