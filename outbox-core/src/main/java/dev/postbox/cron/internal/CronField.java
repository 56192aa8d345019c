package dev.postbox.cron.internal;

import java.util.Locale;
import java.util.Set;

/**
 * One field of a cron expression with its allowed numeric range. Checks the plain numeric parts of
 * a field ({@code 5}, {@code 1-5}, {@code *}{@code /15}, lists of those) so that the common mistakes
 * get a message naming the field; anything else (names, {@code L}, {@code W}, {@code #}) is left to
 * cron-utils.
 */
enum CronField {
    SECOND("second", 0, 59),
    MINUTE("minute", 0, 59),
    HOUR("hour", 0, 23),
    DAY_OF_MONTH("day-of-month", 1, 31),
    MONTH("month", 1, 12),
    DAY_OF_WEEK("day-of-week", 0, 7);

    private static final Set<String> ANY = Set.of("*", "?");

    private final String label;
    private final int min;
    private final int max;

    CronField(String label, int min, int max) {
        this.label = label;
        this.min = min;
        this.max = max;
    }

    void check(String field) {
        for (String item : field.split(",", -1)) {
            if (item.isEmpty()) {
                throw new CronSyntaxException(label + " field '" + field + "' has an empty list element");
            }
            checkItem(item);
        }
    }

    private void checkItem(String item) {
        int slash = item.indexOf('/');
        String base = slash < 0 ? item : item.substring(0, slash);
        if (slash >= 0) {
            String step = item.substring(slash + 1);
            if (isNumber(step) && Integer.parseInt(step) == 0) {
                throw new CronSyntaxException(label + " step in '" + item + "' must be at least 1");
            }
            if (isNumber(step) && Integer.parseInt(step) > max) {
                throw new CronSyntaxException(label + " step " + step + " out of range 1-" + max);
            }
        }
        if (ANY.contains(base)) {
            return;
        }
        int dash = base.indexOf('-');
        if (dash > 0) {
            String from = base.substring(0, dash);
            String to = base.substring(dash + 1);
            checkValue(from);
            checkValue(to);
            if (isNumber(from) && isNumber(to) && Integer.parseInt(from) > Integer.parseInt(to)) {
                throw new CronSyntaxException(
                        label + " range " + base + " runs backwards; write " + to + "-" + from + " or a list");
            }
        } else {
            checkValue(base);
        }
    }

    private void checkValue(String value) {
        if (!isNumber(value)) {
            if (!value.isEmpty() && value.chars().allMatch(Character::isLetter) && !isKnownName(value)) {
                throw new CronSyntaxException(label + " value '" + value + "' is not a number or a known name");
            }
            return;
        }
        long number = value.length() > 9 ? Long.MAX_VALUE : Long.parseLong(value);
        if (number < min || number > max) {
            throw new CronSyntaxException(label + " value " + value + " out of range " + min + "-" + max);
        }
    }

    private boolean isKnownName(String value) {
        String upper = value.toUpperCase(Locale.ROOT);
        switch (this) {
            case MONTH:
                return Set.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
                        .contains(upper);
            case DAY_OF_WEEK:
                return Set.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT", "L")
                        .contains(upper);
            case DAY_OF_MONTH:
                return Set.of("L", "W", "LW").contains(upper);
            default:
                return false;
        }
    }

    private static boolean isNumber(String value) {
        return !value.isEmpty() && value.chars().allMatch(c -> c >= '0' && c <= '9');
    }
}
