package io.eve.transport.netty;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** A logger that keeps every event at every level, for tests that count what was logged. Thread-safe. */
final class RecordingLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    record Event(Level level, String message) {}

    private final List<Event> events = new CopyOnWriteArrayList<>();

    RecordingLogger() {
        this.name = "recording";
    }

    List<Event> events() {
        return List.copyOf(events);
    }

    List<String> at(Level level) {
        return events.stream()
                .filter(event -> event.level() == level)
                .map(Event::message)
                .toList();
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
            Level level, Marker marker, String pattern, Object[] arguments, Throwable throwable) {
        events.add(new Event(level, MessageFormatter.basicArrayFormat(pattern, arguments)));
    }

    @Override
    public boolean isTraceEnabled() {
        return true;
    }

    @Override
    public boolean isDebugEnabled() {
        return true;
    }

    @Override
    public boolean isInfoEnabled() {
        return true;
    }

    @Override
    public boolean isWarnEnabled() {
        return true;
    }

    @Override
    public boolean isErrorEnabled() {
        return true;
    }
}
