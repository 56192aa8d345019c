package dev.postbox.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.Collection;
import org.jspecify.annotations.Nullable;

/** Small JDBC helpers shared by the repositories. */
final class Sql {

    private Sql() {}

    static Array bigints(Connection c, Collection<Long> values) throws SQLException {
        return c.createArrayOf("bigint", values.toArray(new Long[0]));
    }

    static Array texts(Connection c, Collection<String> values) throws SQLException {
        return c.createArrayOf("text", values.toArray(new String[0]));
    }

    static void setTimestamp(PreparedStatement ps, int index, @Nullable Instant instant) throws SQLException {
        if (instant == null) {
            ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            ps.setTimestamp(index, Timestamp.from(instant));
        }
    }

    static @Nullable Instant instant(@Nullable Timestamp ts) {
        return ts == null ? null : ts.toInstant();
    }

    /** Truncates error text kept in the database, NUL characters (which it cannot store) replaced. */
    static @Nullable String errorText(@Nullable String text) {
        if (text == null) {
            return null;
        }
        String stored = NulCharacters.text(text);
        return stored.length() <= 4000 ? stored : stored.substring(0, 4000) + "…";
    }
}
