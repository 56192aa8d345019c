package dev.postbox.internal;

/** The claim's fencing token no longer holds: another worker owns the job now. */
final class StaleLeaseException extends RuntimeException {

    StaleLeaseException(long jobId, long token) {
        super(
                "lease of job " + jobId + " (token " + token + ") was taken over; the transaction is rolled back",
                null,
                false,
                false);
    }
}
