package dev.postbox;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The rule for queue names: 1 to {@value JobRequest#MAX_QUEUE_LENGTH} ASCII letters, digits, '.',
 * '_', ':' and '-' (as schedule names), starting with a letter or digit (e.g. {@code default}, {@code mail}, {@code
 * erp.sync-2}). Queue names travel in URLs (the console's buttons, the actuator's paths), metric
 * tags and logs; with this set they can never change where a URL points. Checked at enqueue and by
 * {@link PostboxAdmin}'s queue operations.
 */
public final class QueueNames {

    /** The allowed set, as error messages name it. */
    public static final String ALLOWED = "1 to " + JobRequest.MAX_QUEUE_LENGTH
            + " ASCII letters, digits, '.', '_', ':' and '-', starting with a letter or digit";

    private static final Pattern NAME =
            Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0," + (JobRequest.MAX_QUEUE_LENGTH - 1) + "}");

    private QueueNames() {}

    /** Whether the name follows the rule. */
    public static boolean valid(@Nullable String queue) {
        return queue != null && NAME.matcher(queue).matches();
    }

    /**
     * The name, or an {@link IllegalArgumentException} naming the queue and the allowed set.
     *
     * @param what how the caller calls the value (e.g. "queue")
     */
    public static String require(@Nullable String queue, String what) {
        String name = Require.notBlank(queue, what);
        if (!valid(name)) {
            throw new IllegalArgumentException(what + " '" + printable(name) + "' is not a valid queue name: use "
                    + ALLOWED + " (e.g. default, mail, erp.sync-2)");
        }
        return name;
    }

    /** The name with control characters shown as '?', so the message stays on one line. */
    private static String printable(String queue) {
        String shown = queue.length() > 200 ? queue.substring(0, 200) + "..." : queue;
        return shown.replaceAll("\\p{Cntrl}", "?");
    }
}
