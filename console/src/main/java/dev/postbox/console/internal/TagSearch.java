package dev.postbox.console.internal;

import dev.postbox.PostboxAdmin;
import dev.postbox.TaggedJob;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The jobs page's search by tags: each {@code tag} parameter one {@code key=value}, all of them
 * required, scoped by the tenant filter, answered by {@link PostboxAdmin#jobsTagged} (its indexes, its
 * tag rules and their messages). One parameter per tag, so a value may hold any printable character
 * (commas, spaces, '=' and '&amp;' included).
 */
final class TagSearch {

    /** The most rows the core's tag search returns at once. */
    static final int MAX_ROWS = 1000;

    private final PostboxAdmin admin;

    TagSearch(PostboxAdmin admin) {
        this.admin = admin;
    }

    /**
     * The tagged jobs of the tenant filter's tenant ({@value JobSearch#DEFAULT_TENANT}: the default
     * tenant), or of every tenant without one (the console is an operator's tool, as for the other
     * searches).
     */
    List<TaggedJob> jobs(@Nullable String tenant, Map<String, String> tags, int limit) {
        if (tenant == null) {
            return admin.jobsTaggedInEveryTenant(tags, limit);
        }
        return admin.jobsTagged(JobSearch.DEFAULT_TENANT.equals(tenant) ? null : tenant, tags, limit);
    }

    /** The tags asked for, by key, in the order given; blank fields (the form's empty one) skipped. */
    static Map<String, String> parse(String @Nullable [] given) {
        Map<String, String> tags = new LinkedHashMap<>();
        if (given == null) {
            return tags;
        }
        for (String raw : given) {
            if (raw.isBlank()) {
                continue;
            }
            String tag = raw.strip();
            int split = tag.indexOf('=');
            if (split <= 0 || split == tag.length() - 1) {
                throw new IllegalArgumentException("A tag to search by is key=value (e.g. customer=42), was '"
                        + printable(tag) + "': give the key, '=' and the value.");
            }
            String key = tag.substring(0, split).strip();
            String value = tag.substring(split + 1);
            String earlier = tags.putIfAbsent(key, value);
            if (earlier != null) {
                throw new IllegalArgumentException("The tag '" + printable(key) + "' is given twice ('"
                        + printable(earlier) + "' and '" + printable(value)
                        + "'): a job has one value per key, so give it once.");
            }
        }
        return tags;
    }

    /** Refuses a tag search that also names a field it does not apply (it reads no time window). */
    static void onlyWithTenant(
            @Nullable String id,
            @Nullable String key,
            @Nullable String orderingKey,
            @Nullable String kind,
            @Nullable String queue,
            @Nullable String state,
            @Nullable String from,
            @Nullable String to) {
        List<String> named = new ArrayList<>();
        addIfGiven(named, "id", id);
        addIfGiven(named, "idempotency key", key);
        addIfGiven(named, "ordering key", orderingKey);
        addIfGiven(named, "kind", kind);
        addIfGiven(named, "queue", queue);
        addIfGiven(named, "state", state);
        addIfGiven(named, "from", from);
        addIfGiven(named, "to", to);
        if (!named.isEmpty()) {
            throw new IllegalArgumentException("A tag search takes the tags and the tenant only (it finds every"
                    + " live, archived and dead job with the tags, in no time window): clear "
                    + String.join(", ", named) + ", or clear the tags.");
        }
    }

    /** The tags as the form shows them again. */
    static List<String> shown(Map<String, String> tags) {
        List<String> shown = new ArrayList<>();
        tags.forEach((k, v) -> shown.add(k + "=" + v));
        return shown;
    }

    private static void addIfGiven(List<String> named, String field, @Nullable String value) {
        if (value != null && !value.isBlank()) {
            named.add(field);
        }
    }

    /** A typed value for a message: control characters as '?', at most 80 characters. */
    private static String printable(String text) {
        String shown = text.length() > 80 ? text.substring(0, 80) + "…" : text;
        StringBuilder out = new StringBuilder(shown.length());
        shown.codePoints().forEach(c -> out.append(Character.isISOControl(c) ? "?" : Character.toString(c)));
        return out.toString();
    }
}
