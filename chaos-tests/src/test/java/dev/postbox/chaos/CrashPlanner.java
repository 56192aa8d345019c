package dev.postbox.chaos;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The crash plan of a run: for each worker incarnation being started, which crash point (if any) it
 * is armed with, which broker's job it waits for there, and after how much work, decided from the
 * halts so far and the plans of the incarnations still alive; told when an incarnation exits. Its
 * random numbers come from one source split off the run's seed, so a run with the same seed arms the
 * same points.
 */
final class CrashPlanner {

    /** Incarnations a run with broker relay defects halts between a broker's ack and the completion. */
    static final int BROKER_CONTROL_HALTS = 9;

    /**
     * What the {@code after-handler} point of the n-th incarnation armed with it waits for: any job,
     * or a broker relay's job (after the broker's acknowledgement, before the completion), in turn.
     */
    private static final List<String> AFTER_HANDLER_TARGETS =
            Arrays.asList(null, Brokers.KAFKA, null, Brokers.AMQP, null, Brokers.NATS);

    /** An armed incarnation's crash point, and the broker whose job it waits for (or null: any job). */
    private record CrashPlan(CrashPoints.Point point, String broker) {}

    private final ChaosConfig.Faults faults;
    /** Whether a broker relay defect is on: the broker controls' plan replaces the profile's. */
    private final boolean brokerControls;

    private final SplittableRandom random;
    private final Map<CrashPoints.Point, AtomicInteger> halts = new EnumMap<>(CrashPoints.Point.class);
    private final AtomicInteger armed = new AtomicInteger();
    /** Halts at {@code after-handler} on a broker relay's job (after the broker's ack), by broker. */
    private final Map<String, AtomicInteger> haltsAfterBrokerAck = new TreeMap<>();
    /** The crash point each live armed incarnation waits for, by worker id (removed at its exit). */
    private final Map<String, CrashPlan> liveCrashPlans = new ConcurrentHashMap<>();
    /** How many incarnations were armed at {@code after-handler}: the any-job/broker rotation. */
    private int afterHandlerArms;

    /**
     * @param random this planner's own source (split off the run's), used only here
     * @param brokerControls whether a broker relay defect is on
     */
    CrashPlanner(ChaosConfig.Faults faults, SplittableRandom random, boolean brokerControls) {
        this.faults = faults;
        this.random = random;
        this.brokerControls = brokerControls;
        for (CrashPoints.Point p : CrashPoints.Point.values()) {
            halts.put(p, new AtomicInteger());
        }
        for (String b : Brokers.ALL) {
            haltsAfterBrokerAck.put(b, new AtomicInteger());
        }
    }

    /**
     * Arms a share of the incarnations with one crash point each (the {@code chaos.crash.*} properties
     * of {@code p}), halting at the point's first event after a uniform 0.3 s..{@code crashDelayMax}
     * of work. The point is the one with the fewest halts so far plus live incarnations waiting for it
     * (ties in order), so that a point whose armed incarnations were killed before they fired is armed
     * again next, not a full rotation later. With brokers, an {@code after-handler} point waits for a
     * job of one broker's relay (a halt between the broker's acknowledgement and the completion's
     * commit): first for a broker with no such halt yet and no live incarnation waiting for it,
     * otherwise every other one in turn (any job between).
     *
     * @param withBrokers whether the run has broker destinations
     */
    void arm(Map<String, String> p, String workerId, boolean withBrokers) {
        synchronized (random) {
            if (withBrokers && brokerControls) {
                armForBrokerControls(p, workerId);
                return;
            }
            if (faults.crashPointShare() <= 0 || random.nextDouble() >= faults.crashPointShare()) {
                return;
            }
            armed.getAndIncrement();
            CrashPoints.Point point = leastCoveredPoint();
            p.put("chaos.crash.point", point.label);
            String broker = null;
            if (withBrokers && point == CrashPoints.Point.AFTER_HANDLER) {
                broker = owedBroker();
                if (broker == null) {
                    broker = AFTER_HANDLER_TARGETS.get(afterHandlerArms % AFTER_HANDLER_TARGETS.size());
                }
                afterHandlerArms++;
                if (broker != null) {
                    p.put("chaos.crash.kind", Brokers.jobKind(broker));
                }
            }
            liveCrashPlans.put(workerId, new CrashPlan(point, broker));
            long max = faults.crashDelayMax().toMillis();
            p.put("chaos.crash.afterMs", Long.toString(300 + random.nextLong(Math.max(1, max - 300))));
        }
    }

    /**
     * The broker relay controls need halts between a broker's acknowledgement and the completion
     * (redeliveries) and halts while a broken relay still holds messages (losses), whatever the
     * profile's crash-point share: the first {@value #BROKER_CONTROL_HALTS} incarnations are armed at
     * {@code after-handler} on a job of each broker in turn, after 2-5 s of work, the later ones not
     * (the run's other controls then have the fleet to themselves).
     */
    private void armForBrokerControls(Map<String, String> p, String workerId) {
        if (armed.get() >= BROKER_CONTROL_HALTS) {
            return;
        }
        String broker = Brokers.ALL.get(armed.getAndIncrement() % Brokers.ALL.size());
        p.put("chaos.crash.point", CrashPoints.Point.AFTER_HANDLER.label);
        p.put("chaos.crash.kind", Brokers.jobKind(broker));
        // after 2-5 s of work: a fresh worker's first Kafka batch waits for its producer to connect,
        // so an earlier halt catches no completed message that the broken relay still holds
        p.put("chaos.crash.afterMs", Long.toString(2_000 + random.nextLong(3_000)));
        liveCrashPlans.put(workerId, new CrashPlan(CrashPoints.Point.AFTER_HANDLER, broker));
    }

    private CrashPoints.Point leastCoveredPoint() {
        CrashPoints.Point least = null;
        long leastCount = Long.MAX_VALUE;
        for (CrashPoints.Point point : CrashPoints.Point.values()) {
            long count = halts.get(point).get()
                    + liveCrashPlans.values().stream()
                            .filter(plan -> plan.point() == point)
                            .count();
            if (count < leastCount) {
                least = point;
                leastCount = count;
            }
        }
        return least;
    }

    /** A broker with no halt after its acknowledgement yet and no live incarnation waiting for one. */
    private String owedBroker() {
        for (String broker : Brokers.ALL) {
            boolean waitedFor = liveCrashPlans.values().stream().anyMatch(plan -> broker.equals(plan.broker()));
            if (haltsAfterBrokerAck.get(broker).get() == 0 && !waitedFor) {
                return broker;
            }
        }
        return null;
    }

    /**
     * An incarnation exited with {@code status}: its plan is over, and a halt at a crash point is
     * counted. Returns whether the exit was such a halt (else it was unexpected).
     */
    boolean exited(String workerId, int status) {
        CrashPoints.Point point = CrashPoints.Point.byExitStatus(status);
        CrashPlan plan = liveCrashPlans.remove(workerId);
        if (point == null) {
            return false;
        }
        halts.get(point).incrementAndGet();
        if (point == CrashPoints.Point.AFTER_HANDLER && plan != null && plan.broker() != null) {
            haltsAfterBrokerAck.get(plan.broker()).incrementAndGet();
        }
        return true;
    }

    /** How many incarnations were armed with a crash point. */
    int armed() {
        return armed.get();
    }

    /** Whether every crash point has halted at least {@code min} times. */
    boolean everyPointHalted(int min) {
        for (AtomicInteger n : halts.values()) {
            if (n.get() < min) {
                return false;
            }
        }
        return true;
    }

    /** Whether every broker has had a halt after its acknowledgement. */
    boolean everyBrokerHaltedAfterAck() {
        for (AtomicInteger n : haltsAfterBrokerAck.values()) {
            if (n.get() < 1) {
                return false;
            }
        }
        return true;
    }

    /** Halts by crash point label. */
    Map<String, Long> haltsByPoint() {
        Map<String, Long> m = new TreeMap<>();
        halts.forEach((point, n) -> m.put(point.label, (long) n.get()));
        return m;
    }

    /** Halts at {@code after-handler} after a broker's acknowledgement, by broker. */
    Map<String, Long> haltsAfterBrokerAck() {
        Map<String, Long> m = new TreeMap<>();
        haltsAfterBrokerAck.forEach((broker, n) -> m.put(broker, (long) n.get()));
        return m;
    }
}
