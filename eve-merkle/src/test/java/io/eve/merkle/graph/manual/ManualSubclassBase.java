package io.eve.merkle.graph.manual;

import io.eve.merkle.graph.StateObject;

/** An unenhanced superclass declaring state, for the refusal of an enhanced subclass over it. */
public abstract class ManualSubclassBase extends StateObject {
    long inherited;
}
