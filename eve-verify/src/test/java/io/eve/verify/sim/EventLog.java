package io.eve.verify.sim;

import java.util.ArrayDeque;
import java.util.Deque;

/** The last lines of what happened in a run, printed with a failure. Single-threaded. */
final class EventLog {
    private final int capacity;
    private final Deque<String> lines = new ArrayDeque<>();
    private final boolean echo;

    EventLog(int capacity, boolean echo) {
        this.capacity = capacity;
        this.echo = echo;
    }

    void add(long nanos, String line) {
        String stamped = String.format("%10.3f ms  %s", nanos / 1e6, line);
        if (echo) {
            System.out.println(stamped);
        }
        if (lines.size() == capacity) {
            lines.removeFirst();
        }
        lines.addLast(stamped);
    }

    String tail() {
        return String.join("\n", lines);
    }
}
