package io.eve.verify.sim;

import java.util.PriorityQueue;

/**
 * The simulator's agenda: events ordered by simulated time, then by the order they were scheduled, so
 * two events at the same instant always run in the same order. Single-threaded.
 */
final class EventQueue {
    /** One thing that happens at a simulated instant; {@code what} goes to the event log. */
    record Event(long at, long order, String what, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event other) {
            int byTime = Long.compare(at, other.at);
            return byTime != 0 ? byTime : Long.compare(order, other.order);
        }
    }

    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private long now;
    private long scheduled;

    long now() {
        return now;
    }

    void at(long time, String what, Runnable action) {
        events.add(new Event(Math.max(time, now), scheduled++, what, action));
    }

    void after(long delay, String what, Runnable action) {
        at(now + delay, what, action);
    }

    /** Removes the next event and advances the clock to it; {@code null} when none is left. */
    Event next() {
        Event event = events.poll();
        if (event != null) {
            now = event.at();
        }
        return event;
    }

    long executedOrScheduled() {
        return scheduled;
    }
}
