package dev.postbox.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

/** Issue 32: a worker's pool without a socket timeout is named at start, with the fix. */
class SocketTimeoutCheckTest {

    private static HikariDataSource pool(String url) {
        HikariDataSource hikari = new HikariDataSource(); // not started: no connection is made
        hikari.setJdbcUrl(url);
        return hikari;
    }

    @Test
    void aPoolWithoutASocketTimeoutIsNamedWithTheFix() {
        try (HikariDataSource hikari = pool("jdbc:postgresql://db:5432/app?user=app")) {
            assertThat(SocketTimeoutCheck.advice(hikari))
                    .hasValueSatisfying(w -> assertThat(w)
                            .contains("sets no socket timeout")
                            .contains("spring.datasource.hikari.data-source-properties.socketTimeout")
                            .contains("tcpKeepAlive=true"));
        }
    }

    @Test
    void aSocketTimeoutInTheUrlOrTheDataSourcePropertiesIsEnough() {
        try (HikariDataSource inUrl = pool("jdbc:postgresql://db:5432/app?user=app&socketTimeout=30");
                HikariDataSource inProperties = pool("jdbc:postgresql://db:5432/app")) {
            inProperties.addDataSourceProperty("socketTimeout", "30");
            assertThat(SocketTimeoutCheck.advice(inUrl)).isEmpty();
            assertThat(SocketTimeoutCheck.advice(inProperties)).isEmpty();
        }
    }

    @Test
    void aSocketTimeoutOfZeroIsNone() {
        try (HikariDataSource zero = pool("jdbc:postgresql://db:5432/app?socketTimeout=0")) {
            assertThat(SocketTimeoutCheck.advice(zero)).isPresent();
        }
    }
}
