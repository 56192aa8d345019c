package dev.postbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.Job;
import dev.postbox.JsonCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The prefetch buffer hands out claimed jobs round robin by tenant, in claim order within one. */
class TenantFairBufferTest {

    private static long ids;

    private static ClaimedJob job(String tenant) {
        return job(tenant, null);
    }

    private static ClaimedJob job(String tenant, String orderingKey) {
        long id = ++ids;
        Job job = Job.builder(id, "m", "{}", JsonCodec.jackson())
                .attempt(1, 8)
                .tenant(tenant)
                .orderingKey(orderingKey)
                .build();
        return new ClaimedJob(job, id, false, false, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
    }

    private static List<ClaimedJob> jobs(String tenant, int n) {
        List<ClaimedJob> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(job(tenant));
        }
        return jobs;
    }

    private static String tenantOf(ClaimedJob j) {
        return j.job().tenant().orElse("(default)");
    }

    @Test
    void aQuietTenantsJobIsTakenNextEvenBehindAThousandOfAFloodingOne() throws Exception {
        TenantFairBuffer buffer = new TenantFairBuffer();
        buffer.addAll(jobs("flood", 1000));
        buffer.poll(); // a worker took the flood's first job: the flood's turn comes again after the others'
        ClaimedJob quiet = job("quiet");
        buffer.offer(quiet);

        // At most one job of every other tenant with jobs waiting goes first: here one of the flood's.
        assertThat(tenantOf(buffer.poll(1, TimeUnit.SECONDS))).isEqualTo("flood");
        assertThat(buffer.poll(1, TimeUnit.SECONDS)).isSameAs(quiet);
        assertThat(buffer.size()).isEqualTo(998);
    }

    @Test
    void tenantsTakeTurnsAndEachKeepsItsClaimOrder() throws Exception {
        TenantFairBuffer buffer = new TenantFairBuffer();
        List<ClaimedJob> a = List.of(job("a"), job("a"), job("a"));
        List<ClaimedJob> b = List.of(job("b"));
        ClaimedJob defaultTenant = job(null);
        buffer.addAll(a);
        buffer.addAll(b);
        buffer.offer(defaultTenant);

        List<ClaimedJob> taken = new ArrayList<>();
        buffer.drainTo(taken);

        assertThat(taken).extracting(TenantFairBufferTest::tenantOf).containsExactly("a", "b", "(default)", "a", "a");
        assertThat(taken.stream().filter(j -> tenantOf(j).equals("a")).toList()).containsExactlyElementsOf(a);
        assertThat(buffer.poll(10, TimeUnit.MILLISECONDS)).isNull();
    }

    /** A batch worker takes waiting jobs of its kind out of the middle; the rotation stays intact. */
    @Test
    void aWaitingJobCanBeTakenOutOnceAndTheRotationSkipsAnEmptiedTenant() throws Exception {
        TenantFairBuffer buffer = new TenantFairBuffer();
        ClaimedJob a1 = job("a");
        ClaimedJob a2 = job("a");
        ClaimedJob b = job("b");
        ClaimedJob c = job("c");
        buffer.addAll(List.of(a1, a2, b, c));

        List<ClaimedJob> seen = new ArrayList<>();
        buffer.forEach(seen::add);
        assertThat(seen).containsExactlyInAnyOrder(a1, a2, b, c);
        assertThat(buffer.remove(b)).isTrue();
        assertThat(buffer.remove(b)).as("another worker was first").isFalse();
        assertThat(buffer.remove(a2)).isTrue();
        assertThat(buffer.size()).isEqualTo(2);

        List<ClaimedJob> taken = new ArrayList<>();
        buffer.drainTo(taken);
        assertThat(taken).containsExactly(a1, c);
        assertThat(buffer.isEmpty()).isTrue();
    }

    @Test
    void aKeysJobWaitsForTheOtherKeysJobsNotForAThousandUnorderedOnes() throws Exception {
        TenantFairBuffer buffer = new TenantFairBuffer();
        List<ClaimedJob> unordered = jobs("t", 1000);
        buffer.addAll(unordered);
        buffer.poll(); // a worker took the first: the ordered jobs' turn is next
        ClaimedJob first = job("t", "key-1");
        ClaimedJob second = job("t", "key-2");
        buffer.addAll(List.of(first, second));

        // ordered and unordered jobs of the tenant take turns, each kind in claim order
        List<ClaimedJob> taken = new ArrayList<>();
        buffer.drainTo(taken, 4);
        assertThat(taken).containsExactly(first, unordered.get(1), second, unordered.get(2));
        assertThat(buffer.size()).isEqualTo(997);
        assertThat(buffer.remove(unordered.get(500))).isTrue();
        assertThat(buffer.remove(first)).as("taken already").isFalse();
        assertThat(buffer).hasSize(996).doesNotContain(unordered.get(500));
    }

    @Test
    void aTenantsOrderedJobsDoNotTakeTurnsFromOtherTenants() throws Exception {
        TenantFairBuffer buffer = new TenantFairBuffer();
        ClaimedJob a1 = job("a", "k1");
        ClaimedJob a2 = job("a");
        ClaimedJob a3 = job("a", "k2");
        ClaimedJob b1 = job("b");
        ClaimedJob b2 = job("b");
        buffer.addAll(List.of(a1, a2, a3, b1, b2));

        List<ClaimedJob> taken = new ArrayList<>();
        buffer.drainTo(taken);
        assertThat(taken).containsExactly(a1, b1, a2, b2, a3);
    }
}
