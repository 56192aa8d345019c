package dev.postbox.http.webhook;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.http.AesGcmSecretCipher;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.ssrf.SsrfPolicy;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/** One test database with any number of engines, each with its own HTTP delivery module (a "process"). */
final class Harness implements AutoCloseable {

    record Node(Postbox postbox, HttpDeliveryModule http) {}

    final HikariDataSource ds = TestDatabase.create();
    final List<Node> nodes = new ArrayList<>();

    /** The key every test node seals secrets with unless a test sets another cipher. */
    static final String TEST_KEY = AesGcmSecretCipher.generateKey();

    static final AesGcmSecretCipher TEST_CIPHER = AesGcmSecretCipher.of(Map.of("test", TEST_KEY), "test");

    static SsrfPolicy loopbackAllowed() {
        return SsrfPolicy.custom().allow("127.0.0.1/32").build();
    }

    Node node(UnaryOperator<HttpDeliveryModule.Builder> module, UnaryOperator<PostboxConfig.Builder> config) {
        return node(module, config, engine -> engine);
    }

    /** A node whose engine builder (handlers, listener) {@code engine} completes. */
    Node node(
            UnaryOperator<HttpDeliveryModule.Builder> module,
            UnaryOperator<PostboxConfig.Builder> config,
            UnaryOperator<Postbox.Builder> engine) {
        HttpDelivery delivery =
                HttpDelivery.builder().ssrfPolicy(loopbackAllowed()).build();
        HttpDeliveryModule http = module.apply(HttpDeliveryModule.builder(ds)
                        .delivery(delivery)
                        .secretCipher(TEST_CIPHER)
                        .endpointCacheTtl(Duration.ZERO))
                .build();
        PostboxConfig cfg = config.apply(
                        PostboxConfig.custom().workerId("node-" + nodes.size()).pollInterval(Duration.ofMillis(100)))
                .build();
        Postbox postbox =
                engine.apply(Postbox.builder(ds).config(cfg).module(http)).build();
        Node node = new Node(postbox, http);
        nodes.add(node);
        return node;
    }

    Node node() {
        return node(m -> m, c -> c);
    }

    long count(String sql) {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    void exec(String sql) {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    interface TxBody {
        void run(Connection c) throws Exception;
    }

    void tx(TxBody body) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            body.run(c);
            c.commit();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        for (Node n : nodes) {
            n.postbox().stop();
            n.http().delivery().close();
        }
        TestDatabase.drop(ds);
    }
}
