package dev.postbox.cron.internal;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.parser.CronParser;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Recognises the accepted cron dialects and parses an expression with cron-utils.
 *
 * <ul>
 *   <li>5 fields: Unix cron ({@code minute hour day-of-month month day-of-week}, weekday 0-7 with
 *       0 and 7 = Sunday; when both day fields are restricted, either may match).
 *   <li>6 fields: Spring/Quartz style with seconds first ({@code second minute hour day-of-month
 *       month day-of-week}); {@code ?}, {@code L}, {@code W} and {@code #} are accepted. The weekday
 *       numbering is Spring's (0 or 7 = Sunday, 1 = Monday), not Quartz's (1 = Sunday): prefer names
 *       such as {@code MON-FRI}.
 *   <li>Macros: {@code @yearly}/{@code @annually}, {@code @monthly}, {@code @weekly}, {@code
 *       @daily}/{@code @midnight}, {@code @hourly}, expanded to their 5-field equivalents.
 * </ul>
 */
public final class CronSyntax {

    /** The hint appended to every syntax error. */
    public static final String USAGE =
            "Use 5 fields (minute hour day month weekday), 6 fields with seconds first," + " or a macro like @hourly.";

    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 1 1 *",
            "@annually", "0 0 1 1 *",
            "@monthly", "0 0 1 * *",
            "@weekly", "0 0 * * 0",
            "@daily", "0 0 * * *",
            "@midnight", "0 0 * * *",
            "@hourly", "0 * * * *");

    private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    private static final CronParser WITH_SECONDS =
            new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));

    private static final List<CronField> UNIX_FIELDS =
            List.of(CronField.MINUTE, CronField.HOUR, CronField.DAY_OF_MONTH, CronField.MONTH, CronField.DAY_OF_WEEK);
    private static final List<CronField> SECONDS_FIELDS = List.of(
            CronField.SECOND,
            CronField.MINUTE,
            CronField.HOUR,
            CronField.DAY_OF_MONTH,
            CronField.MONTH,
            CronField.DAY_OF_WEEK);

    private CronSyntax() {}

    /**
     * Parses an expression.
     *
     * @throws CronSyntaxException with a short description of what is wrong (without the
     *     expression or the usage hint, which the caller adds)
     */
    public static Cron parse(String expression) {
        String trimmed = expression.trim();
        if (trimmed.isEmpty()) {
            throw new CronSyntaxException("the expression is empty");
        }
        if (trimmed.startsWith("@")) {
            String expanded = MACROS.get(trimmed.toLowerCase(Locale.ROOT));
            if (expanded == null) {
                throw new CronSyntaxException("unknown macro " + trimmed
                        + " (supported: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)");
            }
            return UNIX.parse(expanded);
        }
        String[] parts = trimmed.split("\\s+");
        List<CronField> fields;
        CronParser parser;
        if (parts.length == 5) {
            fields = UNIX_FIELDS;
            parser = UNIX;
        } else if (parts.length == 6) {
            fields = SECONDS_FIELDS;
            parser = WITH_SECONDS;
        } else {
            throw new CronSyntaxException("expected 5 or 6 fields but found " + parts.length);
        }
        for (int i = 0; i < parts.length; i++) {
            fields.get(i).check(parts[i]);
        }
        try {
            return parser.parse(String.join(" ", parts));
        } catch (IllegalArgumentException e) {
            throw new CronSyntaxException(cleanParserMessage(e.getMessage()), e);
        }
    }

    private static String cleanParserMessage(@Nullable String message) {
        if (message == null || message.isBlank()) {
            return "the expression cannot be parsed";
        }
        String cleaned = message.replace("Failed to parse cron expression. ", "");
        if (cleaned.endsWith(".")) {
            cleaned = cleaned.substring(0, cleaned.length() - 1);
        }
        return Character.toLowerCase(cleaned.charAt(0)) + cleaned.substring(1);
    }
}
