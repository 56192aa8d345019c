package dev.postbox.internal;

/**
 * Splits each claim between the priority lanes (high, normal, low) by weight, with deficit
 * round-robin so that even claims of one or two jobs give every lane its share over time. A lane
 * that is backlogged therefore always gets at least its weight's fraction of the claims, which is
 * what bounds the wait of low-priority jobs under sustained high-priority load.
 */
final class LaneShares {

    /** Lane values as stored in {@code outbox_job.lane}, in claim-preference order. */
    static final int[] LANES = {1, 0, -1};

    private final double[] weights;
    private final double[] credits = new double[3];

    /** Weights of the high, normal and low lanes; each non-negative, not all zero. */
    LaneShares(int high, int normal, int low) {
        double total = (double) high + normal + low;
        this.weights = new double[] {high / total, normal / total, low / total};
    }

    /** The number of jobs each lane (high, normal, low) may claim out of {@code n}. */
    synchronized int[] allocate(int n) {
        int[] shares = new int[3];
        int given = 0;
        for (int i = 0; i < 3; i++) {
            credits[i] += n * weights[i];
            shares[i] = (int) Math.floor(credits[i]);
            credits[i] -= shares[i];
            given += shares[i];
        }
        while (given < n) {
            int best = 0;
            for (int i = 1; i < 3; i++) {
                if (credits[i] > credits[best]) {
                    best = i;
                }
            }
            shares[best]++;
            credits[best] -= 1;
            given++;
        }
        return shares;
    }
}
