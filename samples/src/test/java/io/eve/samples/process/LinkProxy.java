package io.eve.samples.process;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy on 127.0.0.1 in front of one endpoint, for the nemesis: it forwards bytes both ways, and
 * on command cuts the link (closes every connection through it and closes new ones at once, so both
 * ends see a dead peer, as in a partition) or delays every chunk it forwards. Faults apply to the whole
 * link; a test that wants an asymmetric partition puts one proxy on each direction. It can also keep a
 * copy of the first bytes the first connection sends through it ({@link #capture}), for replays.
 *
 * <p>Thread-safe; two daemon threads per connection.
 */
final class LinkProxy implements AutoCloseable {
    private final String name;
    private final InetSocketAddress target;
    private final ServerSocket server;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private volatile long delayNanos;
    private volatile boolean closed;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private volatile int captureLimit;
    private volatile Socket captureFrom;

    private LinkProxy(String name, InetSocketAddress target) throws IOException {
        this.name = name;
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }

    /** Starts a proxy to {@code target} on a free port of 127.0.0.1. */
    static LinkProxy start(String name, InetSocketAddress target) throws IOException {
        LinkProxy proxy = new LinkProxy(name, target);
        Thread acceptor = new Thread(proxy::acceptLoop, "proxy-" + name);
        acceptor.setDaemon(true);
        acceptor.start();
        return proxy;
    }

    int port() {
        return server.getLocalPort();
    }

    /** Drops the link: open connections close, new ones are closed as soon as they arrive. */
    void cut() {
        cut = true;
        for (Socket socket : open) {
            closeQuietly(socket);
        }
    }

    /** Lets connections through again. */
    void heal() {
        cut = false;
        delayNanos = 0;
    }

    /**
     * Keeps a copy of the first {@code limit} bytes that the next connection to arrive sends towards the
     * target (from its very first byte, so the copy starts with the dialer's handshake and whole frames).
     */
    void capture(int limit) {
        captureLimit = limit;
    }

    /** What {@link #capture} has kept so far. */
    byte[] captured() {
        synchronized (captured) {
            return captured.toByteArray();
        }
    }

    /** Holds every forwarded chunk for {@code millis} before passing it on. */
    void delay(long millis) {
        delayNanos = TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Override
    public String toString() {
        return name;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket inbound;
            try {
                inbound = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (cut) {
                closeQuietly(inbound);
                continue;
            }
            try {
                Socket outbound = new Socket();
                outbound.connect(target, 1_000);
                inbound.setTcpNoDelay(true);
                outbound.setTcpNoDelay(true);
                open.add(inbound);
                open.add(outbound);
                if (captureLimit > 0 && captureFrom == null) {
                    captureFrom = inbound;
                }
                pump(inbound, outbound, "up");
                pump(outbound, inbound, "down");
            } catch (IOException e) {
                closeQuietly(inbound); // the target is down: so is the link
            }
        }
    }

    private void pump(Socket from, Socket to, String direction) {
        Thread thread = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        for (int read = in.read(buffer); read >= 0 && !cut; read = in.read(buffer)) {
                            long delay = delayNanos;
                            if (delay > 0) {
                                TimeUnit.NANOSECONDS.sleep(delay);
                            }
                            if (cut) {
                                break;
                            }
                            keep(from, buffer, read);
                            out.write(buffer, 0, read);
                            out.flush();
                        }
                    } catch (SocketException closedByCut) {
                        // cut() or the other side closed: the link ends
                    } catch (IOException | InterruptedException e) {
                        // the link ends
                    } finally {
                        open.remove(from);
                        open.remove(to);
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "proxy-" + name + "-" + direction);
        thread.setDaemon(true);
        thread.start();
    }

    private void keep(Socket from, byte[] buffer, int length) {
        if (from != captureFrom) {
            return;
        }
        synchronized (captured) {
            captured.write(buffer, 0, Math.min(length, captureLimit - captured.size()));
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing is all we wanted
        }
    }

    @Override
    public void close() {
        closed = true;
        cut();
        try {
            server.close();
        } catch (IOException ignored) {
            // closing is all we wanted
        }
    }
}
