package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The public test support: what a test sees of waiting jobs, time moved for them, a clean slate. */
class PostboxTestSupportTest extends DatabaseTest {

    @Test
    void aTestSeesItsJobsMovesThemForwardAndStartsClean() throws Exception {
        Postbox postbox = Postbox.builder(dataSource).build();
        enqueueCommitted(
                postbox.outbox(),
                JobRequest.builder("invoice")
                        .payload(Map.of("order", 7))
                        .idempotencyKey("invoice-7")
                        .delay(Duration.ofHours(2))
                        .build());
        enqueueCommitted(
                postbox.outbox(), JobRequest.builder("other").payload(Map.of()).build());

        try (Connection c = dataSource.getConnection()) {
            List<PostboxTestSupport.WaitingJob> jobs = PostboxTestSupport.jobsOfKind(c, "invoice");
            assertThat(jobs).singleElement().satisfies(j -> {
                assertThat(j.kind()).isEqualTo("invoice");
                assertThat(j.payloadJson()).isEqualTo("{\"order\": 7}");
                assertThat(j.idempotencyKey()).isEqualTo("invoice-7");
                assertThat(j.state()).isEqualTo("pending");
                assertThat(j.runAt()).isAfter(Instant.now().plus(Duration.ofMinutes(90)));
            });

            assertThat(PostboxTestSupport.advanceTime(c, Duration.ofHours(3))).isEqualTo(2);
            assertThat(PostboxTestSupport.jobsOfKind(c, "invoice").get(0).runAt())
                    .isBefore(Instant.now());
            assertThatThrownBy(() -> PostboxTestSupport.advanceTime(c, Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("time only moves forward");

            PostboxTestSupport.reset(c);
            assertThat(PostboxTestSupport.jobsOfKind(c, "invoice")).isEmpty();
            assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
        }
    }
}
