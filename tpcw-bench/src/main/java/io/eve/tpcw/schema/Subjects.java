package io.eve.tpcw.schema;

import java.util.List;

/** The 24 item subjects of TPC-W (spec clause 4.7.1). */
public final class Subjects {
    /** In the spec's order; an interaction names a subject by its index here. */
    public static final List<String> ALL = List.of(
            "ARTS",
            "BIOGRAPHIES",
            "BUSINESS",
            "CHILDREN",
            "COMPUTERS",
            "COOKING",
            "HEALTH",
            "HISTORY",
            "HOME",
            "HUMOR",
            "LITERATURE",
            "MYSTERY",
            "NON-FICTION",
            "PARENTING",
            "POLITICS",
            "REFERENCE",
            "RELIGION",
            "ROMANCE",
            "SELF-HELP",
            "SCIENCE-NATURE",
            "SCIENCE-FICTION",
            "SPORTS",
            "YOUTH",
            "TRAVEL");

    private Subjects() {}
}
