package io.eve.tpcw.schema;

/**
 * TPC-W's DigSyl (spec clause 4.6.2.12): each decimal digit of a number becomes a syllable. Customer user
 * names, author last names and item titles are built from it, so the emulated browsers' search strings
 * (DigSyl of a random number) find rows.
 */
public final class DigSyl {
    private static final String[] SYLLABLES = {"BA", "OG", "AL", "RI", "RE", "SE", "AT", "UL", "IN", "NG"};

    private DigSyl() {}

    /** The syllables of the decimal digits of {@code n}, which must not be negative. */
    public static String of(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("DigSyl needs a non-negative number, got " + n);
        }
        String digits = Long.toString(n);
        StringBuilder out = new StringBuilder(digits.length() * 2);
        for (int i = 0; i < digits.length(); i++) {
            out.append(SYLLABLES[digits.charAt(i) - '0']);
        }
        return out.toString();
    }
}
