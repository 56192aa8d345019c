package dev.postbox.cron;

import dev.postbox.TenantId;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One cron schedule: when it fires and what job each fire creates. Immutable and validated; build it
 * with {@link #builder(String)}.
 *
 * <pre>{@code
 * ScheduleDefinition nightly = ScheduleDefinition.builder("nightly-report")
 *         .cron("30 2 * * *")
 *         .zone("Europe/Berlin")
 *         .kind("build-report")
 *         .payloadTemplate("{\"firedAt\": \"${fireAt}\"}")
 *         .build();
 * }</pre>
 *
 * Each fire becomes an ordinary job of {@link #kind()} in {@link #queue()}, whose payload is the
 * {@link #payloadTemplate()} with its placeholders replaced ({@link #payloadFor(Instant)}) and whose
 * idempotency key is the {@link FireKey}; the job belongs to the schedule's {@link #tenant()} (the
 * default tenant unless one is set).
 */
public final class ScheduleDefinition {

    /** Allowed schedule names: letters, digits, {@code . _ : -}; no {@code @} (the fire key separator). */
    public static final Pattern NAME_PATTERN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,99}");
    /** The queue used when none is given. */
    public static final String DEFAULT_QUEUE = "default";
    /** The payload used when no template is given. */
    public static final String DEFAULT_PAYLOAD_TEMPLATE = "{}";
    /** How late a fire may be before it counts as missed, unless configured. */
    public static final Duration DEFAULT_MISFIRE_THRESHOLD = Duration.ofMinutes(1);

    /** Placeholder replaced by the schedule name. */
    public static final String SCHEDULE_NAME_PLACEHOLDER = "${scheduleName}";
    /** Placeholder replaced by the fire instant in ISO-8601 UTC, for example 2027-03-28T01:00:00Z. */
    public static final String FIRE_AT_PLACEHOLDER = "${fireAt}";
    /** Placeholder replaced by the {@link FireKey}. */
    public static final String FIRE_KEY_PLACEHOLDER = "${fireKey}";

    private final String name;
    private final CronSchedule cron;
    private final String kind;
    private final String queue;
    private final String payloadTemplate;
    private final DstGapPolicy dstGapPolicy;
    private final MissedFirePolicy missedFirePolicy;
    private final OverlapPolicy overlapPolicy;
    private final Duration misfireThreshold;
    private final FireCalculator fireCalculator;
    private final @Nullable String tenant;

    private ScheduleDefinition(Builder b) {
        this.name = b.name;
        if (b.cron == null) {
            throw new InvalidScheduleException(
                    name,
                    "Schedule '" + name + "': cron may not be null; use 5 fields (minute hour day month"
                            + " weekday), 6 fields with seconds first, or a macro like @hourly");
        }
        this.cron = b.zone != null
                ? CronSchedule.parse(name, b.cron, b.zone)
                : CronSchedule.parse(name, b.cron, b.zoneId != null ? b.zoneId : ZoneOffset.UTC.getId());
        this.kind = b.kind != null ? b.kind : name;
        this.queue = b.queue;
        this.payloadTemplate = b.payloadTemplate;
        this.dstGapPolicy = b.dstGapPolicy;
        this.missedFirePolicy = b.missedFirePolicy;
        this.overlapPolicy = b.overlapPolicy;
        this.misfireThreshold = b.misfireThreshold;
        this.fireCalculator = new FireCalculator(cron, dstGapPolicy);
        this.tenant = b.tenant;
    }

    /** Starts a definition of the schedule called {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder preset with this definition's values. */
    public Builder toBuilder() {
        return new Builder(name)
                .cron(cron.expression())
                .zone(cron.zone())
                .kind(kind)
                .queue(queue)
                .payloadTemplate(payloadTemplate)
                .dstGapPolicy(dstGapPolicy)
                .missedFirePolicy(missedFirePolicy)
                .overlapPolicy(overlapPolicy)
                .misfireThreshold(misfireThreshold)
                .tenant(tenant);
    }

    /** The unique name of the schedule; the first half of every {@link FireKey}. */
    public String name() {
        return name;
    }

    /** The parsed cron expression and its zone. */
    public CronSchedule cron() {
        return cron;
    }

    /** The cron expression as written. */
    public String cronExpression() {
        return cron.expression();
    }

    /** The zone whose wall clock the expression follows (UTC unless configured). */
    public ZoneId zone() {
        return cron.zone();
    }

    /** The job kind (handler) each fire creates; the schedule name unless configured. */
    public String kind() {
        return kind;
    }

    /** The queue of the jobs each fire creates. */
    public String queue() {
        return queue;
    }

    /** The JSON payload template; see {@link #payloadFor(Instant)}. */
    public String payloadTemplate() {
        return payloadTemplate;
    }

    /** How fires in a DST gap are treated (SHIFT unless configured). */
    public DstGapPolicy dstGapPolicy() {
        return dstGapPolicy;
    }

    /** How missed fires are treated (ONE unless configured). */
    public MissedFirePolicy missedFirePolicy() {
        return missedFirePolicy;
    }

    /** Whether fires may overlap an unfinished earlier fire (ALLOW unless configured). */
    public OverlapPolicy overlapPolicy() {
        return overlapPolicy;
    }

    /** How late a fire may be before it counts as missed (one minute unless configured). */
    public Duration misfireThreshold() {
        return misfireThreshold;
    }

    /** The tenant the jobs of the fires belong to; empty for the default tenant. */
    public Optional<String> tenant() {
        return Optional.ofNullable(tenant);
    }

    /** The calculator of this schedule's fire instants. */
    public FireCalculator fireCalculator() {
        return fireCalculator;
    }

    /** The fire key of this schedule firing at {@code fireInstant}. */
    public String fireKey(Instant fireInstant) {
        return FireKey.of(name, fireInstant);
    }

    /**
     * The payload of the job for the fire at {@code fireInstant}: the template with {@value
     * #SCHEDULE_NAME_PLACEHOLDER}, {@value #FIRE_AT_PLACEHOLDER} and {@value #FIRE_KEY_PLACEHOLDER}
     * replaced by plain text (none of them contains characters that need JSON escaping, so put them
     * inside a JSON string: {@code {"at": "${fireAt}"}}).
     */
    public String payloadFor(Instant fireInstant) {
        String fireKey = fireKey(fireInstant);
        return payloadTemplate
                .replace(SCHEDULE_NAME_PLACEHOLDER, name)
                .replace(FIRE_AT_PLACEHOLDER, fireKey.substring(name.length() + 1))
                .replace(FIRE_KEY_PLACEHOLDER, fireKey);
    }

    /** Whether the two definitions would schedule the same fires of the same jobs. */
    @Override
    public boolean equals(@Nullable Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ScheduleDefinition)) {
            return false;
        }
        ScheduleDefinition other = (ScheduleDefinition) o;
        return name.equals(other.name)
                && cron.expression().equals(other.cron.expression())
                && cron.zone().equals(other.cron.zone())
                && kind.equals(other.kind)
                && queue.equals(other.queue)
                && payloadTemplate.equals(other.payloadTemplate)
                && dstGapPolicy == other.dstGapPolicy
                && missedFirePolicy == other.missedFirePolicy
                && overlapPolicy == other.overlapPolicy
                && misfireThreshold.equals(other.misfireThreshold)
                && Objects.equals(tenant, other.tenant);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, cron.expression(), cron.zone(), kind, queue, payloadTemplate, tenant);
    }

    @Override
    public String toString() {
        return "ScheduleDefinition[" + name + ": '" + cron.expression() + "' in " + cron.zone() + " -> " + kind + "@"
                + queue + (tenant == null ? "" : ", tenant " + tenant) + ", gap " + dstGapPolicy + ", missed "
                + missedFirePolicy + ", overlap " + overlapPolicy
                + "]";
    }

    /** Builds a {@link ScheduleDefinition}; each setter validates its argument. */
    public static final class Builder {

        private final String name;
        private @Nullable String cron;
        private @Nullable String zoneId;
        private @Nullable ZoneId zone;
        private @Nullable String kind;
        private String queue = DEFAULT_QUEUE;
        private String payloadTemplate = DEFAULT_PAYLOAD_TEMPLATE;
        private DstGapPolicy dstGapPolicy = DstGapPolicy.SHIFT;
        private MissedFirePolicy missedFirePolicy = MissedFirePolicy.ONE;
        private OverlapPolicy overlapPolicy = OverlapPolicy.ALLOW;
        private Duration misfireThreshold = DEFAULT_MISFIRE_THRESHOLD;
        private @Nullable String tenant;

        private Builder(String name) {
            if (name == null || !NAME_PATTERN.matcher(name).matches()) {
                throw new IllegalArgumentException("schedule name '" + name + "' is invalid: use 1 to 100 letters,"
                        + " digits, '.', '_', ':' or '-', starting with a letter or digit");
            }
            this.name = name;
        }

        /** The cron expression (5 fields, 6 fields with seconds first, or a macro); required. */
        public Builder cron(String cron) {
            this.cron = requireText(cron, "cron");
            return this;
        }

        /** The zone by id, for example {@code Europe/Berlin}; UTC if not set. Checked at {@link #build()}. */
        public Builder zone(String zoneId) {
            this.zoneId = requireText(zoneId, "zone");
            this.zone = null;
            return this;
        }

        /** The zone; UTC if not set. */
        public Builder zone(ZoneId zone) {
            this.zone = require(zone, "zone");
            this.zoneId = null;
            return this;
        }

        /** The job kind each fire creates; the schedule name if not set. */
        public Builder kind(String kind) {
            this.kind = requireText(kind, "kind");
            return this;
        }

        /** The queue of the jobs; {@value ScheduleDefinition#DEFAULT_QUEUE} if not set. */
        public Builder queue(String queue) {
            this.queue = requireText(queue, "queue");
            return this;
        }

        /** The JSON payload template; {@code {}} if not set. */
        public Builder payloadTemplate(String payloadTemplate) {
            this.payloadTemplate = requireText(payloadTemplate, "payloadTemplate");
            return this;
        }

        /** How fires in a DST gap are treated; {@link DstGapPolicy#SHIFT} if not set. */
        public Builder dstGapPolicy(DstGapPolicy dstGapPolicy) {
            this.dstGapPolicy = require(dstGapPolicy, "dstGapPolicy");
            return this;
        }

        /** How missed fires are treated; {@link MissedFirePolicy#ONE} if not set. */
        public Builder missedFirePolicy(MissedFirePolicy missedFirePolicy) {
            this.missedFirePolicy = require(missedFirePolicy, "missedFirePolicy");
            return this;
        }

        /** Whether fires may overlap an unfinished earlier fire; {@link OverlapPolicy#ALLOW} if not set. */
        public Builder overlapPolicy(OverlapPolicy overlapPolicy) {
            this.overlapPolicy = require(overlapPolicy, "overlapPolicy");
            return this;
        }

        /** How late a fire may be before it counts as missed; one minute if not set; not negative. */
        public Builder misfireThreshold(Duration misfireThreshold) {
            require(misfireThreshold, "misfireThreshold");
            if (misfireThreshold.isNegative()) {
                throw new IllegalArgumentException(
                        "schedule '" + name + "': misfireThreshold may not be negative, was " + misfireThreshold);
            }
            this.misfireThreshold = misfireThreshold;
            return this;
        }

        /**
         * The tenant the jobs of the fires belong to (a {@link TenantId}); null (the default) for the
         * default tenant.
         */
        public Builder tenant(@Nullable String tenant) {
            this.tenant = tenant == null ? null : TenantId.validate(tenant, "schedule '" + name + "': tenant");
            return this;
        }

        /**
         * Builds the definition.
         *
         * @throws InvalidScheduleException when the cron expression or the zone is invalid
         */
        public ScheduleDefinition build() {
            return new ScheduleDefinition(this);
        }

        private <T> T require(@Nullable T value, String field) {
            if (value == null) {
                throw new IllegalArgumentException("schedule '" + name + "': " + field + " may not be null");
            }
            return value;
        }

        private String requireText(@Nullable String value, String field) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException("schedule '" + name + "': " + field + " may not be null or blank");
            }
            return value;
        }
    }
}
