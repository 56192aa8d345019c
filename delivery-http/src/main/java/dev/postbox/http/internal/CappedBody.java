package dev.postbox.http.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import okio.Buffer;
import okio.Source;
import org.jspecify.annotations.Nullable;

/**
 * Reads at most {@code cap} bytes of a response body. With OkHttp's transparent gzip the source
 * yields decompressed bytes, so the cap bounds decompressed bytes and a gzip bomb is cut off after
 * about {@code cap} bytes of inflation (plus at most one 8 KiB segment of read-ahead), never
 * inflated in full.
 *
 * @param text the bytes read, decoded as UTF-8 (malformed sequences replaced)
 * @param truncated whether the body had more than {@code cap} bytes
 * @param error the read failure, or null when the body was read to its end or to the cap
 */
public record CappedBody(
        String text, boolean truncated, @Nullable IOException error) {

    /** Reads up to {@code cap} bytes; reading stops at the first byte past the cap. */
    public static CappedBody read(Source source, long cap) {
        Buffer buffer = new Buffer();
        IOException failure = null;
        try {
            while (buffer.size() <= cap) {
                long read = source.read(buffer, cap + 1 - buffer.size());
                if (read == -1) {
                    break;
                }
            }
        } catch (IOException e) {
            failure = e;
        }
        boolean truncated = buffer.size() > cap;
        byte[] read = buffer.readByteArray();
        byte[] bytes = truncated ? Arrays.copyOf(read, (int) cap) : read;
        return new CappedBody(new String(bytes, StandardCharsets.UTF_8), truncated, failure);
    }
}
