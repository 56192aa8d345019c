package dev.postbox.spring.internal;

import dev.postbox.JobRequest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.ParseException;

/**
 * A job to write, as an annotation describes it: a kind, queue and destination, SpEL expressions for payload and
 * keys, a delay and a priority. Parsed and validated once, when the annotated method or event class
 * is first seen, so that mistakes are reported at startup with the place they were made.
 */
final class JobTemplate {

    private final String where;
    private final String kind;
    private final String queue;
    private final @Nullable String destination;
    private final @Nullable Expression payload;
    private final @Nullable Expression idempotencyKey;
    private final @Nullable Expression orderingKey;
    private final @Nullable Expression tenant;
    private final @Nullable Expression condition;
    private final Duration delay;
    private final int priority;
    private final Map<String, Expression> tags;

    JobTemplate(
            ExpressionParser parser,
            String where,
            String kind,
            String queue,
            String destination,
            String payload,
            String idempotencyKey,
            String orderingKey,
            String tenant,
            String condition,
            String delay,
            int priority) {
        this(
                parser,
                where,
                kind,
                queue,
                destination,
                payload,
                idempotencyKey,
                orderingKey,
                tenant,
                condition,
                delay,
                priority,
                new String[0]);
    }

    JobTemplate(
            ExpressionParser parser,
            String where,
            String kind,
            String queue,
            String destination,
            String payload,
            String idempotencyKey,
            String orderingKey,
            String tenant,
            String condition,
            String delay,
            int priority,
            String[] tags) {
        this.where = where;
        if (kind.isBlank()) {
            throw new IllegalStateException(where + " has a blank kind: name the job kind, e.g. kind = \"send-mail\"");
        }
        this.kind = kind;
        this.queue = queue.isBlank() ? JobRequest.DEFAULT_QUEUE : queue;
        this.destination = destination.isBlank() ? null : destination;
        this.payload = parse(parser, "payload", payload);
        this.idempotencyKey = parse(parser, "idempotencyKey", idempotencyKey);
        this.orderingKey = parse(parser, "orderingKey", orderingKey);
        this.tenant = parse(parser, "tenant", tenant);
        this.condition = parse(parser, "condition", condition);
        Duration parsedDelay = HandlerRegistrations.parseOptionalDuration(delay, () -> where + " delay");
        this.delay = parsedDelay != null ? parsedDelay : Duration.ZERO;
        if (priority < JobRequest.MIN_PRIORITY || priority > JobRequest.MAX_PRIORITY) {
            throw new IllegalStateException(where + ": priority must be between " + JobRequest.MIN_PRIORITY + " and "
                    + JobRequest.MAX_PRIORITY + ", was " + priority);
        }
        this.priority = priority;
        Map<String, Expression> parsedTags = new LinkedHashMap<>();
        for (String tag : tags) {
            int split = tag.indexOf('=');
            String key = split < 0 ? tag : tag.substring(0, split).trim();
            if (split < 0 || split == tag.length() - 1) {
                throw new IllegalStateException(
                        where + ": tag \"" + tag + "\" must be \"key=SpEL\", e.g." + " \"customer=#order.customerId\"");
            }
            try {
                JobRequest.builder(kind).tag(key, "x"); // the key's rules, at startup
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(where + ": " + e.getMessage(), e);
            }
            Expression value = parse(parser, "tag " + key, tag.substring(split + 1));
            if (value != null) {
                parsedTags.put(key, value);
            }
        }
        this.tags = Map.copyOf(parsedTags);
    }

    private @Nullable Expression parse(ExpressionParser parser, String attribute, String text) {
        if (text.isBlank()) {
            return null;
        }
        try {
            return parser.parseExpression(text);
        } catch (ParseException e) {
            throw new IllegalStateException(
                    where + ": " + attribute + " = \"" + text + "\" is not a valid SpEL expression: " + e.getMessage(),
                    e);
        }
    }

    String kind() {
        return kind;
    }

    /** The annotation and what it is on, for messages. */
    String where() {
        return where;
    }

    /** The destination the job names; null for none. */
    @Nullable
    String destination() {
        return destination;
    }

    boolean hasPayloadExpression() {
        return payload != null;
    }

    /** Whether the condition (if any) holds. */
    boolean applies(EvaluationContext context) {
        if (condition == null) {
            return true;
        }
        Boolean value = evaluate(condition, "condition", context, Boolean.class);
        return Boolean.TRUE.equals(value);
    }

    /** The request for this job; {@code defaultPayload} when no payload expression is set. */
    JobRequest toRequest(EvaluationContext context, Supplier<@Nullable Object> defaultPayload) {
        Object payloadValue =
                payload != null ? evaluate(payload, "payload", context, Object.class) : defaultPayload.get();
        if (payloadValue == null) {
            throw new IllegalStateException(where + ": the payload of job kind '" + kind + "' is null. "
                    + (payload != null
                            ? "The payload expression evaluated to null."
                            : "The method returned null; set payload = \"...\" to choose what to send."));
        }
        JobRequest.Builder builder = JobRequest.builder(kind)
                .queue(queue)
                .payload(payloadValue)
                .priority(priority)
                .delay(delay);
        if (idempotencyKey != null) {
            builder.idempotencyKey(text(idempotencyKey, "idempotencyKey", context));
        }
        if (orderingKey != null) {
            builder.orderingKey(text(orderingKey, "orderingKey", context));
        }
        if (tenant != null) {
            String id = text(tenant, "tenant", context);
            try {
                builder.tenant(id);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(
                        where + ": tenant \"" + tenant.getExpressionString() + "\": " + e.getMessage(), e);
            }
        }
        if (destination != null) {
            builder.endpoint(destination);
        }
        for (Map.Entry<String, Expression> tag : tags.entrySet()) {
            Object value = evaluate(tag.getValue(), "tag " + tag.getKey(), context, Object.class);
            if (value != null) {
                try {
                    builder.tag(tag.getKey(), value.toString());
                } catch (IllegalArgumentException e) {
                    throw new IllegalStateException(where + ": " + e.getMessage(), e);
                }
            }
        }
        return builder.build();
    }

    private @Nullable String text(Expression expression, String attribute, EvaluationContext context) {
        Object value = evaluate(expression, attribute, context, Object.class);
        if (value == null) {
            return null;
        }
        String text = value.toString();
        if (text.isBlank()) {
            throw new IllegalStateException(where + ": " + attribute + " \"" + expression.getExpressionString()
                    + "\" evaluated to a blank text; return null for no key");
        }
        return text;
    }

    private <T> @Nullable T evaluate(
            Expression expression, String attribute, EvaluationContext context, Class<T> type) {
        try {
            return expression.getValue(context, type);
        } catch (EvaluationException e) {
            throw new IllegalStateException(
                    where + ": evaluating " + attribute + " \"" + expression.getExpressionString() + "\" failed: "
                            + e.getMessage(),
                    e);
        }
    }
}
