package dev.postbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The chaos suite in {@code ./mvnw verify}: one CI-sized run that must keep the contract and reach
 * its minimum coverage, and the negative controls, each of which must be judged invalid by the same
 * checker through its own counter (proof that every figure of the report can move). The controls
 * share two short runs: those that need no faults, and those that need zombies or retries; each
 * defect acts on its own slice of the traffic (README). {@code -Dchaos.skipControls=true} skips them.
 * The traffic has a tenant dimension ({@link ChaosTenants}): its counters have their controls too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChaosTest {

    private ChaosResult quiet;
    private ChaosResult faulty;

    @Test
    @Order(1)
    void workersKilledAtRandomLoseNothingAndDuplicateNoEffect() throws Exception {
        ChaosConfig config = ChaosConfig.ci().withSystemProperties();
        ChaosResult r = new ChaosRun(config).run();
        String seed = "seed " + config.seed();

        assertThat(Checker.failures(r)).as("failure counts, " + seed).isEmpty();
        assertThat(r.values().get("verdict")).isEqualTo("valid");
        assertThat(r.coverageGaps()).as("minimum coverage, " + seed).isEmpty();
    }

    @Test
    @Order(2)
    void aWorkerThatCompletesJobsWithoutTheirEffectIsCaughtAsLost() throws Exception {
        ChaosResult r = quietControls();
        assertCaught(r, Control.LOST);
        // the lost local jobs themselves, not only the events a subscriber missed (fanOutMissing's control)
        assertThat(((Map<?, ?>) r.values().get("lostByKind")).get(Producer.LOCAL))
                .as("lost local jobs")
                .isNotNull();
    }

    @Test
    @Order(3)
    void anEnqueueThatCommitsOutsideTheBusinessTransactionIsCaughtAsGhost() throws Exception {
        assertCaught(quietControls(), Control.GHOST);
    }

    @Test
    @Order(4)
    void aClaimThatIgnoresOrderingKeysIsCaught() throws Exception {
        ChaosResult r = quietControls();
        // a key's jobs side by side, and out of the commit order the application recorded
        assertCaught(r, Control.IGNORE_ORDERING_KEY);
        assertCaughtBy(r, "commitOrderInversions", Control.IGNORE_ORDERING_KEY.toString());
    }

    @Test
    @Order(19)
    void aHungHandlerThatNoLimitGivesUpIsCaught() throws Exception {
        assertCaught(quietControls(), Control.HUNG_WITHOUT_TIME_LIMIT);
    }

    @Test
    @Order(20)
    void aGivenUpAttemptWhoseLateWriteLandsIsCaught() throws Exception {
        ChaosResult r = quietControls();
        assertCaught(r, Control.HUNG_LATE_EFFECT_ESCAPES);
        assertCaughtBy(r, "duplicateEffects", Control.HUNG_LATE_EFFECT_ESCAPES.toString());
    }

    @Test
    @Order(5)
    void aRateLimitHeldPerProcessIsCaught() throws Exception {
        ChaosResult r = quietControls();
        assertCaught(r, Control.RATE_LIMIT_PER_PROCESS);
        assertThat(r.count("rateLimitMaxPerSecond")).isGreaterThan(RateLimitCheck.BOUND);
    }

    @Test
    @Order(6)
    void aMaterialiserWithoutFireKeysIsCaught() throws Exception {
        ChaosResult r = quietControls();
        assertCaught(r, Control.CRON_WITHOUT_FIRE_KEY);
        assertThat(r.count("cronDuplicatedFires")).isPositive();
    }

    @Test
    @Order(7)
    void aHandlerThatAlsoSendsItsJobElsewhereIsCaughtAsAnUnexpectedTarget() throws Exception {
        assertCaught(quietControls(), Control.MISROUTED_EFFECT);
    }

    @Test
    @Order(8)
    void aFanOutThatSkipsASubscriberIsCaught() throws Exception {
        assertCaught(quietControls(), Control.FAN_OUT_SKIPS_A_SUBSCRIBER);
    }

    @Test
    @Order(9)
    void aPoisonJobDeadLetteredAnAttemptLateIsCaught() throws Exception {
        assertCaught(quietControls(), Control.POISON_ATTEMPT_TOO_MANY);
    }

    @Test
    @Order(10)
    void aJobThatNeverCompletesIsCaughtAsNotTerminal() throws Exception {
        ChaosResult r = quietControls();
        assertCaught(r, Control.FAN_OUT_NEVER_COMPLETES);
        // the drain did not wait its whole timeout for jobs parked past it
        assertThat((Double) r.values().get("drainSeconds"))
                .isLessThan(
                        ChaosConfig.quietControls().workload().drainTimeout().toSeconds());
    }

    @Test
    @Order(11)
    void aSenderWhoseSignatureDoesNotVerifyIsCaught() throws Exception {
        assertCaught(quietControls(), Control.BAD_SIGNATURE);
    }

    @Test
    @Order(12)
    void aProducerTransactionThatFailsIsCaughtAsAProducerFailure() throws Exception {
        assertCaught(quietControls(), Control.BROKEN_ENQUEUE);
    }

    @Test
    @Order(13)
    void aWorkerThatExitsOnItsOwnIsCaught() throws Exception {
        assertCaught(quietControls(), Control.WORKER_EXITS);
    }

    @Test
    @Order(14)
    void aCompletionThatIgnoresTheLeaseTokenIsCaught() throws Exception {
        ChaosResult r = faultControls();
        assertCaught(r, Control.UNFENCED_COMPLETION);
        // Nothing but SIGSTOP zombies in this run: the duplicates come from stale tokens, every one of
        // them applied (at least once) by an incarnation that had been stopped.
        assertThat(r.count("workerKills") + r.count("connectionKillRounds")).isZero();
        assertThat(r.count("duplicatedKeysWithAZombieApplication")).isPositive();
        assertThat(r.count("duplicatedKeysWithAZombieApplication"))
                .as("duplicated local keys without a zombie's application")
                .isEqualTo(r.count("duplicatedLocalKeys"));
    }

    @Test
    @Order(15)
    void aSenderThatChangesTheWebhookIdOnRetryIsCaught() throws Exception {
        assertCaught(faultControls(), Control.WEBHOOK_ID_PER_ATTEMPT);
    }

    @Test
    @Order(16)
    void aBrokerRelayThatCompletesBeforeTheAcknowledgementIsCaughtAsLost() throws Exception {
        ChaosResult r = faultControls();
        assertCaught(r, Control.BROKER_COMPLETES_BEFORE_ACK);
        // every broker's count moves: the halts come while each relay still holds messages
        assertThat(r.count("amqpLost")).as("amqpLost").isPositive();
        assertThat(r.count("natsLost")).as("natsLost").isPositive();
    }

    @Test
    @Order(17)
    void aBrokerKeyThatChangesOnRedeliveryIsCaught() throws Exception {
        ChaosResult r = faultControls();
        // JetStream stores the republished copy (its Nats-Msg-Id is new)
        assertCaught(r, Control.BROKER_KEY_PER_SEND);
        // a consumer deduplicating by the key applies redelivered copies twice, at every broker
        for (String broker : Brokers.ALL) {
            assertThat(r.count(broker + "DuplicatesAfterKeyDedupe"))
                    .as(broker + "DuplicatesAfterKeyDedupe")
                    .isPositive();
        }
    }

    @Test
    @Order(18)
    void aKafkaRelayThatDropsTheRecordKeyIsCaught() throws Exception {
        ChaosResult r = faultControls();
        assertCaught(r, Control.KAFKA_WITHOUT_RECORD_KEY);
        assertThat(r.count("kafkaRecordKeyMismatches")).isPositive();
    }

    @Test
    @Order(12)
    void aTenantRateLimitHeldPerProcessIsCaught() throws Exception {
        ChaosResult r = quietControls();
        // rateLimitPerProcess holds a tenant's webhook rate per process too (delivery-http's TenantRates)
        assertCaughtBy(r, "tenantRateLimitViolations", Control.RATE_LIMIT_PER_PROCESS.toString());
    }

    @Test
    @Order(13)
    void aHandlerThatSeesAnotherTenantIsCaught() throws Exception {
        ChaosResult r = faultControls();
        assertCaught(r, Control.TENANT_SWAP);
        // both observers see it: the local handler's table and the receiver (the delivery's webhook-id)
        assertCaughtBy(r, "crossTenantEffectsLocal", Control.TENANT_SWAP.toString());
        assertCaughtBy(r, "crossTenantEffectsReceiver", Control.TENANT_SWAP.toString());
    }

    @Test
    @Order(14)
    void anIdempotencyKeyThatIgnoresTheTenantIsCaught() throws Exception {
        ChaosResult r = faultControls();
        assertCaught(r, Control.TENANT_BLIND_KEYS);
        // the losses are the named tenants' (their keys are the default tenant's, which comes first)
        @SuppressWarnings("unchecked")
        java.util.Map<String, Long> lost =
                (java.util.Map<String, Long>) r.values().get("lostByTenant");
        assertThat(ChaosTenants.NAMED.stream()
                        .mapToLong(t -> lost.getOrDefault(t, 0L))
                        .sum())
                .as("lost intents of the named tenants")
                .isPositive();
    }

    @AfterAll
    void stopTheKafkaBroker() {
        Brokers.stopKafka(); // the crash storm and the incident, later in this JVM, relay nothing
    }

    /**
     * The control's own counter, by name, is among the verdict's failures: a count that moved but was
     * unhooked from the verdict, or a verdict made invalid by another control's counter, fails.
     */
    static void assertCaught(ChaosResult r, Control control) {
        assertCaughtBy(r, control.counter(), control.toString());
    }

    static void assertCaughtBy(ChaosResult r, String counter, String what) {
        assertThat(Checker.failing(r))
                .as(what + " must be among the verdict's failures through " + counter + " (seed "
                        + r.values().get("seed") + ")")
                .containsKey(counter);
        assertThat(r.values().get("verdict")).isEqualTo("invalid");
    }

    private synchronized ChaosResult quietControls() throws Exception {
        assumeFalse(Boolean.getBoolean("chaos.skipControls"));
        if (quiet == null) {
            quiet = new ChaosRun(ChaosConfig.quietControls()).run();
        }
        return quiet;
    }

    private synchronized ChaosResult faultControls() throws Exception {
        assumeFalse(Boolean.getBoolean("chaos.skipControls"));
        if (faulty == null) {
            faulty = new ChaosRun(ChaosConfig.faultControls()).run();
        }
        return faulty;
    }
}
