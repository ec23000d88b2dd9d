package io.eve.transport;

import java.util.Locale;

/**
 * Which socket layer the TCP transport runs on (config key {@code transport.io}, decision 0045).
 *
 * <ul>
 *   <li>{@link #AUTO}: Netty's native epoll transport where its library loads (Linux on x86-64), otherwise the
 *       JDK's NIO; the default.
 *   <li>{@link #EPOLL}: the native epoll transport, and a clear error at start if it cannot load.
 *   <li>{@link #NIO}: the JDK's NIO selector, everywhere.
 * </ul>
 */
public enum SocketIo {
    AUTO,
    EPOLL,
    NIO;

    /** The key's value as written in a configuration file. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The value named {@code text} ({@code auto}, {@code epoll} or {@code nio}, any case).
     *
     * @throws IllegalArgumentException naming the text and the values allowed
     */
    public static SocketIo parse(String text) {
        String key = text.trim().toLowerCase(Locale.ROOT);
        for (SocketIo io : values()) {
            if (io.key().equals(key)) {
                return io;
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not one of auto, epoll, nio");
    }
}
