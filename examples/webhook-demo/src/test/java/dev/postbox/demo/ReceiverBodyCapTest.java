package dev.postbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The demo's receiver lets the inbox read the body, so its size cap applies while reading: a body
 * over {@code postbox.inbox.max-body-bytes} is refused (413) having read at most one byte past the
 * cap, not after Spring buffered it whole (as a {@code @RequestBody byte[]} parameter would).
 */
class ReceiverBodyCapTest {

    private static final int CAP = 1024;

    /** Counts the bytes the application reads from each request's body. */
    static final class BodyCounter extends OncePerRequestFilter {
        final AtomicLong read = new AtomicLong();

        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            ServletInputStream body = request.getInputStream();
            ServletInputStream counting = new ServletInputStream() {
                @Override
                public int read() throws IOException {
                    int b = body.read();
                    if (b >= 0) {
                        read.incrementAndGet();
                    }
                    return b;
                }

                @Override
                public int read(byte[] buffer, int offset, int length) throws IOException {
                    int n = body.read(buffer, offset, length);
                    if (n > 0) {
                        read.addAndGet(n);
                    }
                    return n;
                }

                @Override
                public boolean isFinished() {
                    return body.isFinished();
                }

                @Override
                public boolean isReady() {
                    return body.isReady();
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    body.setReadListener(listener);
                }
            };
            chain.doFilter(
                    new HttpServletRequestWrapper(request) {
                        @Override
                        public ServletInputStream getInputStream() {
                            return counting;
                        }
                    },
                    response);
        }
    }

    @Test
    void anOversizedBodyIsRefusedWithoutBeingBuffered() throws Exception {
        String url;
        try (HikariDataSource database = TestDatabase.createEmpty()) {
            url = database.getJdbcUrl();
        }
        BodyCounter counter = new BodyCounter();
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WebhookDemoApplication.class)
                .initializers(c -> c.getBeanFactory().registerSingleton("bodyCounter", counter))
                .run(
                        "--server.port=0",
                        "--spring.datasource.url=" + url,
                        "--postbox.schema.initialize=always",
                        "--postbox.inbox.max-body-bytes=" + CAP)) {
            URI receiver = URI.create("http://127.0.0.1:"
                    + context.getEnvironment().getProperty("local.server.port") + "/receiver/orders");
            HttpClient client =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

            // cap + 1 bytes with their Content-Length: refused before a byte is read.
            HttpResponse<String> declared = client.send(
                    HttpRequest.newBuilder(receiver)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[CAP + 1]))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(declared.statusCode()).isEqualTo(413);
            assertThat(declared.body()).contains("TOO_LARGE").contains("over the limit of " + CAP + " bytes");
            assertThat(counter.read.get()).isZero();

            // 1 MiB chunked (no Content-Length): refused after reading at most cap + 1 bytes.
            counter.read.set(0);
            HttpResponse<String> chunked = client.send(
                    HttpRequest.newBuilder(receiver)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofInputStream(
                                    () -> new ByteArrayInputStream(new byte[1024 * CAP])))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(chunked.statusCode()).isEqualTo(413);
            assertThat(chunked.body()).contains("TOO_LARGE");
            assertThat(counter.read.get()).isPositive().isLessThanOrEqualTo(CAP + 1);
        }
    }
}
