package dev.postbox.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy in front of a server (PostgreSQL) that can cut the network as a partition does: in a
 * black hole it forwards nothing in either direction and keeps every socket open (no RST, no FIN),
 * so neither side learns of the cut; {@link #resume} forwards again (bytes sent meanwhile are lost,
 * as in a real cut, so a session used meanwhile is broken) and {@link #reset} closes every
 * connection. Plain sockets, a thread per direction of each connection.
 */
public final class BlackHoleProxy implements AutoCloseable {

    private final InetSocketAddress target;
    private final ServerSocket server;
    private final AtomicBoolean blackHole = new AtomicBoolean();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /** Listens on a free port of the loopback interface and forwards to {@code host:port}. */
    public BlackHoleProxy(String host, int port) throws IOException {
        this.target = new InetSocketAddress(host, port);
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "black-hole-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The port clients connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** Stops forwarding in both directions; every socket stays open. */
    public void blackHole() {
        blackHole.set(true);
    }

    /** Forwards again. */
    public void resume() {
        blackHole.set(false);
    }

    public boolean blackHoled() {
        return blackHole.get();
    }

    /** Closes every connection (each side sees a reset or an end of stream); new ones are accepted. */
    public void reset() {
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.clear();
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        reset();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                upstream.connect(target);
                sockets.add(client);
                sockets.add(upstream);
                pipe(client, upstream, "up");
                pipe(upstream, client, "down");
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pipe(Socket from, Socket to, String direction) {
        Thread t = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream()) {
                        OutputStream out = to.getOutputStream();
                        int n;
                        while ((n = in.read(buffer)) >= 0) {
                            if (!blackHole.get()) {
                                out.write(buffer, 0, n);
                                out.flush();
                            }
                        }
                    } catch (IOException e) {
                        // the connection is gone: close its other side below
                    }
                    // An end of stream in a black hole is not passed on: the cut hides it.
                    if (!blackHole.get()) {
                        closeQuietly(to);
                        closeQuietly(from);
                    }
                },
                "black-hole-proxy-" + direction);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing what may be closed already
        }
    }
}
