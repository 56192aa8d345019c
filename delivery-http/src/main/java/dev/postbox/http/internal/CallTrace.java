package dev.postbox.http.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import okhttp3.Call;
import okhttp3.Connection;
import okhttp3.EventListener;
import org.jspecify.annotations.Nullable;

/**
 * Per-call record of the remote address, attached to the request as a tag and filled by {@link
 * #listenerFactory()}: the address connected to, or the last one tried when connecting failed.
 */
public final class CallTrace {

    private volatile @Nullable InetAddress remoteAddress;

    /** The address connected to or last tried, or null. */
    public @Nullable InetAddress remoteAddress() {
        return remoteAddress;
    }

    /** An event listener factory that fills the {@link CallTrace} tag of each call, if present. */
    public static EventListener.Factory listenerFactory() {
        return call -> {
            CallTrace trace = call.request().tag(CallTrace.class);
            return trace == null ? EventListener.NONE : trace.new Listener();
        };
    }

    private final class Listener extends EventListener {
        @Override
        public void connectStart(Call call, InetSocketAddress address, Proxy proxy) {
            remoteAddress = address.getAddress();
        }

        @Override
        public void connectionAcquired(Call call, Connection connection) {
            remoteAddress = connection.route().socketAddress().getAddress();
        }
    }
}
