package dev.postbox.spring.observation;

/**
 * The names and keys of Postbox's observations (as timers: {@code <name>} and {@code
 * <name>.active}; as spans: the contextual names below). Low-cardinality keys become metric tags
 * and span tags; high-cardinality keys only span tags.
 *
 * <table>
 *   <caption>Observations</caption>
 *   <tr><th>name</th><th>span</th><th>around</th><th>low-cardinality keys</th><th>high-cardinality keys</th></tr>
 *   <tr><td>{@value #ENQUEUE}</td><td>{@code enqueue <kind>}, producer</td><td>writing one job in the
 *       caller's transaction</td><td>kind, queue, outcome (created, duplicate, error)</td><td>postbox.job.id</td></tr>
 *   <tr><td>{@value #JOB_ATTEMPT}</td><td>{@code attempt <kind>}, consumer</td><td>one handler attempt</td>
 *       <td>kind, queue, outcome (success, retry, dead, snoozed, lease-lost, unrecorded)</td>
 *       <td>postbox.job.id, postbox.attempt</td></tr>
 *   <tr><td>{@value #WEBHOOK_SEND}</td><td>{@code webhook <endpoint>}, client</td><td>one webhook HTTP
 *       request</td><td>endpoint, outcome (done, retry, dead, disable-endpoint, not-sent, error), status
 *       (2xx, 3xx, 4xx, 5xx, none)</td><td>postbox.job.id, postbox.attempt, http.response.status_code</td></tr>
 * </table>
 */
public final class PostboxObservations {

    /** Around writing one job (one per request of an {@code enqueueAll}). */
    public static final String ENQUEUE = "postbox.enqueue";

    /** Around one attempt of a job's handler. */
    public static final String JOB_ATTEMPT = "postbox.job.attempt";

    /** Around one webhook HTTP request. */
    public static final String WEBHOOK_SEND = "postbox.webhook.send";

    /** Low cardinality: the job's kind. */
    public static final String KIND = "kind";

    /** Low cardinality: the job's queue. */
    public static final String QUEUE = "queue";

    /** Low cardinality: what became of the unit of work. */
    public static final String OUTCOME = "outcome";

    /** Low cardinality: the webhook endpoint's name (never its URL). */
    public static final String ENDPOINT = "endpoint";

    /** Low cardinality: the class of the webhook response status ({@code 2xx} ...), or {@code none}. */
    public static final String STATUS = "status";

    /** High cardinality: the job id. */
    public static final String JOB_ID = "postbox.job.id";

    /** High cardinality: the attempt number, from 1. */
    public static final String ATTEMPT = "postbox.attempt";

    /** High cardinality: the webhook response status code. */
    public static final String STATUS_CODE = "http.response.status_code";

    private PostboxObservations() {}
}
