package dev.postbox.http.inbox;

import dev.postbox.Require;
import dev.postbox.http.signing.VerifiedWebhook;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.signing.WebhookVerificationException;
import dev.postbox.http.signing.WebhookVerifier;
import dev.postbox.internal.RefusalLog;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The receiving side of Postbox webhooks: verifies the Standard Webhooks signature (timestamp
 * tolerance, several secrets during rotation) and applies the receiver's handler at most once per
 * {@code webhook-id}: the id is inserted into the inbox table <em>in the same transaction</em> as the
 * handler's writes, so a redelivery after a success is a no-op and a redelivery after a failure runs
 * again. Together with the sender's at-least-once delivery this gives an exactly-once effect.
 *
 * <pre>{@code
 * WebhookInbox inbox = WebhookInbox.builder(dataSource).secret("whsec_...").build();
 *
 * @PostMapping("/hooks/postbox")
 * ResponseEntity<Void> receive(HttpServletRequest request) throws IOException {
 *     InboxResult result = inbox.receive(
 *             request::getHeader, request.getInputStream(), message -> orders.apply(message.bodyText()));
 *     return ResponseEntity.status(result.httpStatus()).build();
 * }
 * }</pre>
 *
 * <p>Give it the request's stream ({@link #receive(Function, java.io.InputStream, InboxHandler)}),
 * not a {@code @RequestBody byte[]}: the stream is read to at most {@code maxBodyBytes + 1} bytes,
 * while a framework fills a {@code byte[]} parameter with the whole body before the cap applies.
 *
 * <p>A handler that throws rolls the record back and the exception propagates (answer 5xx so that
 * the sender retries). Concurrent deliveries of one id serialise on the table's primary key: the
 * second waits for the first and then sees a duplicate (or runs, if the first rolled back).
 */
public final class WebhookInbox {

    /** The default largest body accepted: 1 MiB. */
    public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

    /** The default inbox table (created by migration V3). */
    public static final String DEFAULT_TABLE = "postbox_inbox";

    private static final Logger log = LoggerFactory.getLogger(WebhookInbox.class);

    private final DataSource dataSource;
    private final WebhookVerifier verifier;
    private final TransactionTemplate transactions;
    private final InboxStore store;
    private final int maxBodyBytes;
    private final RefusalLog rejections;

    private WebhookInbox(Builder b) {
        this.dataSource = b.dataSource;
        this.verifier = b.verifier != null
                ? b.verifier
                : WebhookVerifier.builder()
                        .secrets(b.secrets)
                        .tolerance(b.tolerance)
                        .build();
        PlatformTransactionManager tm =
                b.transactionManager != null ? b.transactionManager : new DataSourceTransactionManager(dataSource);
        this.transactions = new TransactionTemplate(tm);
        this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRED);
        this.store = new InboxStore(dataSource, b.table);
        this.maxBodyBytes = b.maxBodyBytes;
        this.rejections = new RefusalLog(log, "webhook(s)", b.rejectionSummaryInterval);
    }

    /** A builder on the receiver's {@code DataSource}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The DDL of an inbox table with the given (validated) name, for receivers that do not run Postbox's migrations. */
    public static String createTableSql(String table) {
        return InboxStore.createTableSql(table);
    }

    /**
     * Verifies the webhook and applies the handler once per {@code webhook-id}.
     *
     * @param header the request's header lookup (for example {@code request::getHeader})
     * @param rawBody the body bytes exactly as received
     * @return applied, duplicate, or rejected with the reason (answer {@link InboxResult#httpStatus()})
     * @throws InboxHandlerException when the handler failed with a checked exception (unchecked ones
     *     propagate as they are); the record was rolled back, so a redelivery runs the handler again
     */
    public InboxResult receive(Function<String, @Nullable String> header, byte[] rawBody, InboxHandler handler) {
        Require.notNull(header, "header");
        Require.notNull(rawBody, "rawBody");
        Require.notNull(handler, "handler");
        String claimedId = header.apply(WebhookVerifier.ID_HEADER);
        if (rawBody.length > maxBodyBytes) {
            return tooLarge(claimedId, rawBody.length);
        }
        VerifiedWebhook verified;
        try {
            verified = verifier.verify(header, rawBody);
        } catch (WebhookVerificationException e) {
            // Safe to answer: the verifier's messages name neither the clock nor the secrets.
            String reason = e.reason() + ": " + e.getMessage();
            rejections.refused(reason);
            return new InboxResult(InboxResult.Outcome.REJECTED, claimedId, reason);
        }
        InboxMessage message = new InboxMessage(verified.messageId(), verified.timestamp(), rawBody, header);
        Boolean applied = transactions.execute(status -> {
            if (!record(verified)) {
                return false;
            }
            try {
                handler.handle(message);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new InboxHandlerException(verified.messageId(), e);
            }
            return true;
        });
        return new InboxResult(
                Boolean.TRUE.equals(applied) ? InboxResult.Outcome.APPLIED : InboxResult.Outcome.DUPLICATE,
                verified.messageId(),
                null);
    }

    /**
     * {@link #receive(Function, byte[], InboxHandler)} reading the body from a stream, at most {@link
     * Builder#maxBodyBytes(int) maxBodyBytes}: a larger body is not buffered but answered {@link
     * InboxResult.Outcome#TOO_LARGE} (413). The stream is not closed.
     *
     * @throws java.io.UncheckedIOException when reading the body fails
     */
    public InboxResult receive(
            Function<String, @Nullable String> header, java.io.InputStream body, InboxHandler handler) {
        Require.notNull(body, "body");
        byte[] bytes;
        try {
            bytes = body.readNBytes(maxBodyBytes + 1);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("Reading the webhook body failed", e);
        }
        if (bytes.length > maxBodyBytes) {
            return tooLarge(header.apply(WebhookVerifier.ID_HEADER), -1);
        }
        return receive(header, bytes, handler);
    }

    /** The largest body accepted, in bytes. */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    private InboxResult tooLarge(@Nullable String claimedId, long size) {
        String reason = "TOO_LARGE: the body is " + (size < 0 ? "over " + maxBodyBytes : size + " bytes, over")
                + (size < 0 ? " bytes" : " the limit of " + maxBodyBytes + " bytes");
        rejections.refused(reason);
        return new InboxResult(InboxResult.Outcome.TOO_LARGE, claimedId, reason);
    }

    /** {@link #receive(Function, byte[], InboxHandler)} with the headers as a map (names case-insensitive). */
    public InboxResult receive(Map<String, String> headers, byte[] rawBody, InboxHandler handler) {
        Require.notNull(headers, "headers");
        return receive(
                name -> headers.entrySet().stream()
                        .filter(e -> e.getKey().equalsIgnoreCase(name))
                        .map(Map.Entry::getValue)
                        .findFirst()
                        .orElse(null),
                rawBody,
                handler);
    }

    /**
     * Deletes records older than {@code age}; keep them longer than the sender retries (days). Returns
     * how many.
     *
     * @throws IllegalArgumentException when {@code age} is shorter than the verifier's timestamp
     *     tolerance: a record purged sooner lets a captured request, still within the tolerance, be
     *     applied again (a replay)
     */
    public int purgeOlderThan(Duration age) {
        Require.notNull(age, "age");
        if (age.compareTo(verifier.tolerance()) < 0) {
            throw new IllegalArgumentException("purgeOlderThan(" + age + ") is shorter than the timestamp tolerance ("
                    + verifier.tolerance() + "): a replay of a purged webhook within the tolerance would be"
                    + " applied again. Keep records longer than the sender retries (days)");
        }
        try {
            return store.purgeOlderThan(age);
        } catch (SQLException e) {
            throw new IllegalStateException("Purging inbox table " + store.table() + " failed: " + e.getMessage(), e);
        }
    }

    private boolean record(VerifiedWebhook verified) {
        try {
            return store.record(verified.messageId(), verified.timestamp());
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "Recording webhook " + verified.messageId() + " in inbox table " + store.table() + " failed: "
                            + e.getMessage(),
                    e);
        }
    }

    /** A handler's checked exception, rethrown after the inbox transaction rolled back. */
    public static final class InboxHandlerException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InboxHandlerException(String messageId, Exception cause) {
            super("Webhook " + messageId + " handler failed; nothing was recorded, a redelivery runs it again", cause);
        }
    }

    /** Builds a {@link WebhookInbox}. */
    public static final class Builder {
        private final DataSource dataSource;
        private @Nullable WebhookVerifier verifier;
        private final java.util.ArrayList<WebhookSecret> secrets = new java.util.ArrayList<>();
        private Duration tolerance = WebhookVerifier.DEFAULT_TOLERANCE;
        private @Nullable PlatformTransactionManager transactionManager;
        private String table = DEFAULT_TABLE;
        private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private Duration rejectionSummaryInterval = Duration.ofMinutes(1);

        private Builder(DataSource dataSource) {
            this.dataSource = Require.notNull(dataSource, "dataSource");
        }

        /** Adds a secret (whsec_...); add the new and the old one during rotation. */
        public Builder secret(String serialized) {
            secrets.add(WebhookSecret.parse(serialized));
            return this;
        }

        public Builder secret(WebhookSecret secret) {
            secrets.add(Require.notNull(secret, "secret"));
            return this;
        }

        public Builder secrets(List<WebhookSecret> secrets) {
            Require.notNull(secrets, "secrets").forEach(this::secret);
            return this;
        }

        /** How far {@code webhook-timestamp} may be from now. Default 5 minutes. */
        public Builder tolerance(Duration tolerance) {
            this.tolerance = Require.notNull(tolerance, "tolerance");
            return this;
        }

        /** A fully configured verifier instead of secrets and tolerance. */
        public Builder verifier(WebhookVerifier verifier) {
            this.verifier = Require.notNull(verifier, "verifier");
            return this;
        }

        /** The receiver's transaction manager (e.g. JPA on the same DataSource); default a DataSourceTransactionManager. */
        public Builder transactionManager(PlatformTransactionManager transactionManager) {
            this.transactionManager = Require.notNull(transactionManager, "transactionManager");
            return this;
        }

        /** The inbox table, a plain identifier (optionally schema-qualified). Default {@value #DEFAULT_TABLE}. */
        public Builder table(String table) {
            this.table = InboxStore.requireIdentifier(table);
            return this;
        }

        /**
         * The largest body accepted, in bytes; a larger one is answered 413 without being verified.
         * Default {@value WebhookInbox#DEFAULT_MAX_BODY_BYTES} (four times the sender's default payload limit).
         */
        public Builder maxBodyBytes(int maxBodyBytes) {
            if (maxBodyBytes <= 0 || maxBodyBytes == Integer.MAX_VALUE) {
                throw new IllegalArgumentException(
                        "maxBodyBytes must be positive and below " + Integer.MAX_VALUE + ", got " + maxBodyBytes);
            }
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        /** How often at most a WARN summary of rejected webhooks is logged (each one is logged at DEBUG). */
        public Builder rejectionSummaryInterval(Duration interval) {
            Require.notNull(interval, "interval");
            if (interval.isNegative()) {
                throw new IllegalArgumentException("rejectionSummaryInterval may not be negative, got " + interval);
            }
            this.rejectionSummaryInterval = interval;
            return this;
        }

        public WebhookInbox build() {
            if (verifier == null && secrets.isEmpty()) {
                throw new IllegalArgumentException("WebhookInbox needs the endpoint's signing secret(s): call"
                        + " secret(\"whsec_...\") (two during rotation) or verifier(...)");
            }
            return new WebhookInbox(this);
        }
    }
}
