package dev.postbox.spring.schedule;

import dev.postbox.cron.InvalidScheduleException;
import dev.postbox.cron.ScheduleDefinition;
import dev.postbox.spring.PostboxSchedule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;

/**
 * The schedules this application declares: {@link PostboxSchedule @PostboxSchedule} annotations
 * merged with {@code postbox.schedules.<name>.*} properties (a property wins over the attribute of
 * the same name). Building it validates every definition, so an invalid cron expression or zone fails
 * the start-up with the {@link InvalidScheduleException} message (schedule, expression, problem) plus
 * where the schedule was declared.
 */
public final class ScheduleDeclarations {

    /** The kind prefix of the jobs of a schedule on a plain (non-handler) method without a kind. */
    public static final String DEFAULT_KIND_PREFIX = "schedule:";

    private final List<ScheduleDefinition> definitions;
    private final Set<String> disabled;
    private final Map<String, ScheduledMethod> methodHandlers;

    private ScheduleDeclarations(
            List<ScheduleDefinition> definitions, Set<String> disabled, Map<String, ScheduledMethod> methodHandlers) {
        this.definitions = List.copyOf(definitions);
        this.disabled = Set.copyOf(disabled);
        this.methodHandlers = Map.copyOf(methodHandlers);
    }

    /** The enabled definitions, to upsert at start-up. */
    public List<ScheduleDefinition> definitions() {
        return definitions;
    }

    /** Names switched off with {@code postbox.schedules.<name>.enabled=false}. */
    public Set<String> disabled() {
        return disabled;
    }

    /** Plain (non-handler) scheduled methods by the job kind they handle. */
    Map<String, ScheduledMethod> methodHandlers() {
        return methodHandlers;
    }

    static ScheduleDeclarations of(List<ScheduledMethod> methods, PostboxScheduleProperties properties) {
        Map<String, ScheduledMethod> byName = new LinkedHashMap<>();
        for (ScheduledMethod m : methods) {
            ScheduledMethod existing = byName.putIfAbsent(m.schedule().name(), m);
            if (existing != null) {
                throw new IllegalStateException("Schedule '" + m.schedule().name() + "' is declared twice: "
                        + existing.describe() + " and " + m.describe()
                        + ". Schedule names must be unique: rename one.");
            }
        }
        List<ScheduleDefinition> definitions = new ArrayList<>();
        Set<String> disabled = new LinkedHashSet<>();
        Map<String, ScheduledMethod> methodHandlers = new LinkedHashMap<>();
        for (ScheduledMethod m : byName.values()) {
            String name = m.schedule().name();
            PostboxScheduleProperties.Schedule p = properties.getSchedules().get(name);
            String source = m.describe() + (p != null ? " with postbox.schedules." + name + ".*" : "");
            String kind = kind(m, p);
            if (m.handler() != null && !kind.equals(m.handler().value())) {
                throw new IllegalStateException(source + " sets kind '" + kind + "', but the method is the"
                        + " @OutboxHandler of kind '" + m.handler().value()
                        + "'. Leave the schedule's kind unset (it defaults to the handler's), or move the"
                        + " schedule to the handler of '" + kind + "'.");
            }
            if (m.handler() == null) {
                ScheduledMethod other = methodHandlers.putIfAbsent(kind, m);
                if (other != null && !other.method().equals(m.method())) {
                    throw new IllegalStateException("Job kind '" + kind + "' would have two handlers: "
                            + other.describe() + " and " + m.describe()
                            + ". Give the schedules different kinds, or put them on one method.");
                }
            }
            if (p != null && !p.isEnabled()) {
                disabled.add(name);
                continue;
            }
            PostboxSchedule a = m.schedule();
            definitions.add(build(
                    name,
                    source,
                    first(p != null ? p.getCron() : null, a.cron()),
                    first(p != null ? p.getZone() : null, a.zone()),
                    kind,
                    first(p != null ? p.getQueue() : null, a.queue()),
                    first(p != null ? p.getPayload() : null, a.payload()),
                    p,
                    a));
        }
        for (Map.Entry<String, PostboxScheduleProperties.Schedule> e :
                properties.getSchedules().entrySet()) {
            String name = e.getKey();
            PostboxScheduleProperties.Schedule p = e.getValue();
            if (byName.containsKey(name)) {
                continue;
            }
            if (!p.isEnabled()) {
                disabled.add(name);
                continue;
            }
            String source = "postbox.schedules." + name + ".*";
            if (p.getCron() == null || p.getCron().isBlank()) {
                throw new IllegalStateException("Schedule '" + name + "' (" + source + ") has no cron: set postbox"
                        + ".schedules." + name + ".cron, e.g. '0 * * * *' for hourly, or declare the schedule"
                        + " with @PostboxSchedule(name = \"" + name + "\", cron = ...)");
            }
            definitions.add(
                    build(name, source, p.getCron(), p.getZone(), p.getKind(), p.getQueue(), p.getPayload(), p, null));
        }
        return new ScheduleDeclarations(definitions, disabled, methodHandlers);
    }

    private static String kind(ScheduledMethod m, PostboxScheduleProperties.@Nullable Schedule p) {
        String kind = first(p != null ? p.getKind() : null, m.schedule().kind());
        if (kind != null) {
            return kind;
        }
        return m.handler() != null
                ? m.handler().value()
                : DEFAULT_KIND_PREFIX + m.schedule().name();
    }

    private static ScheduleDefinition build(
            String name,
            String source,
            @Nullable String cron,
            @Nullable String zone,
            @Nullable String kind,
            @Nullable String queue,
            @Nullable String payload,
            PostboxScheduleProperties.@Nullable Schedule p,
            @Nullable PostboxSchedule a) {
        try {
            ScheduleDefinition.Builder b = ScheduleDefinition.builder(name);
            if (cron != null) {
                b.cron(cron);
            }
            if (zone != null) {
                b.zone(zone.trim());
            }
            if (kind != null) {
                b.kind(kind);
            }
            if (queue != null) {
                b.queue(queue);
            }
            if (payload != null) {
                b.payloadTemplate(payload);
            }
            if (p != null && p.getTenant() != null) {
                b.tenant(p.getTenant().trim());
            }
            if (p != null && p.getDstGap() != null) {
                b.dstGapPolicy(p.getDstGap());
            } else if (a != null) {
                b.dstGapPolicy(a.dstGap());
            }
            if (p != null && p.getMissedFires() != null) {
                b.missedFirePolicy(p.getMissedFires());
            } else if (a != null) {
                b.missedFirePolicy(a.missedFires());
            }
            if (p != null && p.getOverlap() != null) {
                b.overlapPolicy(p.getOverlap());
            } else if (a != null) {
                b.overlapPolicy(a.overlap());
            }
            Duration threshold = p != null ? p.getMisfireThreshold() : null;
            if (threshold == null && a != null && !a.misfireThreshold().isBlank()) {
                threshold = misfireThreshold(a.misfireThreshold(), source);
            }
            if (threshold != null) {
                b.misfireThreshold(threshold);
            }
            return b.build();
        } catch (InvalidScheduleException e) {
            throw new InvalidScheduleException(name, e.getMessage() + " [declared by " + source + "]", e);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    "Schedule '" + name + "' (" + source + ") is invalid: " + e.getMessage(), e);
        }
    }

    private static Duration misfireThreshold(String text, String source) {
        try {
            return DurationStyle.detectAndParse(text.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    source + ": misfireThreshold '" + text
                            + "' is not a duration. Write it like \"30s\", \"5m\" or \"PT30S\".",
                    e);
        }
    }

    private static @Nullable String first(@Nullable String property, @Nullable String attribute) {
        if (property != null && !property.isBlank()) {
            return property;
        }
        return attribute == null || attribute.isBlank() ? null : attribute;
    }
}
