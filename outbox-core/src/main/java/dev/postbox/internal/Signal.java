package dev.postbox.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** A wake-up flag: {@link #signal()} makes the next (or current) {@link #await} return early. */
final class Signal {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean signalled;

    void signal() {
        lock.lock();
        try {
            signalled = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until signalled or the timeout passes; clears the flag. */
    void await(Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (!signalled && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            signalled = false;
        } finally {
            lock.unlock();
        }
    }

    void await(long timeout, TimeUnit unit) throws InterruptedException {
        await(Duration.ofNanos(unit.toNanos(timeout)));
    }
}
