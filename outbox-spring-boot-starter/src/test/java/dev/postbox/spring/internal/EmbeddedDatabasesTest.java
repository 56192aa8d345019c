package dev.postbox.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.testing.TestDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedDatabasesTest {

    @Test
    void zonkyDataDirectoryIsATemporaryEpgFolderWithItsLockFile(@TempDir Path tmp) throws Exception {
        Path epg = Files.createDirectory(tmp.resolve("epg123456"));
        assertThat(EmbeddedDatabases.isZonkyDataDirectory(epg.toString())).isFalse();
        Files.createFile(epg.resolve("epg-lock"));
        assertThat(EmbeddedDatabases.isZonkyDataDirectory(epg.toString())).isTrue();
        assertThat(EmbeddedDatabases.isZonkyDataDirectory("/var/lib/postgresql/17/main"))
                .isFalse();
        assertThat(EmbeddedDatabases.isZonkyDataDirectory("")).isFalse();
    }

    @Test
    void anEmbeddedPostgresIsEmbedded() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start()) {
            assertThat(EmbeddedDatabases.isEmbedded(postgres.getPostgresDatabase()))
                    .isTrue();
        }
    }

    @Test
    void aServerTheApplicationConnectsToIsNotEmbedded() {
        String url = System.getenv(TestDatabase.URL_VARIABLE);
        org.junit.jupiter.api.Assumptions.assumeTrue(
                url != null && !url.isBlank(), "needs a real server in " + TestDatabase.URL_VARIABLE);
        DataSource ds = TestDatabase.createEmpty();
        try {
            assertThat(EmbeddedDatabases.isEmbedded(ds)).isFalse();
        } finally {
            TestDatabase.drop(ds);
        }
    }
}
