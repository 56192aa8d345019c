package dev.postbox.http.internal;

import java.io.IOException;
import okhttp3.Interceptor;
import okhttp3.Response;

/**
 * A network interceptor: refuses to send a request whose send deadline (its {@link Deadline} tag)
 * has passed, once its connection is ready and before anything is written. What a rate-limited
 * request's permit promises holds only if the request reaches the endpoint soon after the permit
 * was granted; a request held up in between (a new connection, a paused process) is dropped here
 * instead of arriving together with the requests of later permits.
 */
public final class SendDeadlineCheck implements Interceptor {

    /** The deadline tag of a request: a {@link System#nanoTime()} value. */
    public record Deadline(long nanoTime) {}

    /** Thrown (to the caller of the call) when the deadline passed; nothing was sent. */
    public static final class DeadlinePassed extends IOException {
        private static final long serialVersionUID = 1L;

        DeadlinePassed(long lateNanos) {
            super("not sent: its send deadline passed " + lateNanos / 1_000_000
                    + " ms before the connection was ready");
        }
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
        Deadline deadline = chain.request().tag(Deadline.class);
        if (deadline != null) {
            long late = System.nanoTime() - deadline.nanoTime();
            if (late > 0) {
                throw new DeadlinePassed(late);
            }
        }
        return chain.proceed(chain.request());
    }
}
