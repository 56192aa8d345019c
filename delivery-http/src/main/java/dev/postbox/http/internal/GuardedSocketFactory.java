package dev.postbox.http.internal;

import dev.postbox.http.ssrf.AddressVerdict;
import dev.postbox.http.ssrf.SsrfGuard;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import javax.net.SocketFactory;

/**
 * Creates sockets that check the address they actually connect to (the connect-time SSRF check), so
 * that an IP literal (OkHttp does not resolve those) or a rebound DNS answer cannot reach a
 * forbidden address.
 */
public final class GuardedSocketFactory extends SocketFactory {

    private final SsrfGuard guard;

    public GuardedSocketFactory(SsrfGuard guard) {
        this.guard = guard;
    }

    @Override
    public Socket createSocket() {
        return new GuardedSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        Socket socket = createSocket();
        socket.connect(new InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        Socket socket = createSocket();
        socket.bind(new InetSocketAddress(localHost, localPort));
        socket.connect(new InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        Socket socket = createSocket();
        socket.connect(new InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        Socket socket = createSocket();
        socket.bind(new InetSocketAddress(localAddress, localPort));
        socket.connect(new InetSocketAddress(address, port));
        return socket;
    }

    private final class GuardedSocket extends Socket {
        @Override
        public void connect(SocketAddress endpoint, int timeout) throws IOException {
            if (!(endpoint instanceof InetSocketAddress inet) || inet.isUnresolved()) {
                throw new ConnectRefusedUnresolved(endpoint);
            }
            AddressVerdict verdict = guard.check(inet.getAddress());
            if (verdict.forbidden()) {
                close();
                throw new ForbiddenConnectException(verdict);
            }
            super.connect(endpoint, timeout);
        }
    }

    /** An unresolved endpoint cannot be checked, so it is not connected to. */
    private static final class ConnectRefusedUnresolved extends java.net.ConnectException {
        private static final long serialVersionUID = 1L;

        ConnectRefusedUnresolved(SocketAddress endpoint) {
            super("refused to connect to unresolved " + endpoint + " (SSRF guard checks resolved addresses only)");
        }
    }
}
