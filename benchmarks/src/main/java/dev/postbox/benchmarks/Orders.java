package dev.postbox.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** The business side of a transaction: one order row. */
final class Orders {

    static final String DDL = "CREATE TABLE bench_order (id bigserial PRIMARY KEY, customer text NOT NULL,"
            + " amount numeric(12, 2) NOT NULL, created_at timestamptz NOT NULL DEFAULT now())";
    private static final String INSERT = "INSERT INTO bench_order (customer, amount) VALUES (?, ?) RETURNING id";

    private Orders() {}

    static void createTable(DataSource ds) throws SQLException {
        Fixtures.execute(ds, DDL);
    }

    static long insert(Connection c, long n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setString(1, "customer-" + (n % 1000));
            ps.setBigDecimal(2, java.math.BigDecimal.valueOf(1999 + n % 100, 2));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
