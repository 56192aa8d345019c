package dev.postbox.http.internal;

import dev.postbox.http.EndpointTimeouts;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import okhttp3.Interceptor;
import okhttp3.Response;

/**
 * Applies the {@link EndpointTimeouts} tag of a request as its connect, read and write timeouts, so
 * that one client (one connection pool) serves endpoints with different timeouts. The call timeout
 * is set on the {@code Call} itself.
 */
public final class PerCallTimeouts implements Interceptor {

    @Override
    public Response intercept(Chain chain) throws IOException {
        EndpointTimeouts timeouts = chain.request().tag(EndpointTimeouts.class);
        if (timeouts == null) {
            return chain.proceed(chain.request());
        }
        int connect = (int) timeouts.connectTimeout().toMillis();
        int read = (int) timeouts.readTimeout().toMillis();
        return chain.withConnectTimeout(connect, TimeUnit.MILLISECONDS)
                .withReadTimeout(read, TimeUnit.MILLISECONDS)
                .withWriteTimeout(read, TimeUnit.MILLISECONDS)
                .proceed(chain.request());
    }
}
