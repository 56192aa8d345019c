package dev.postbox.spring.internal;

import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * Virtual threads for handlers when {@code spring.threads.virtual.enabled=true} on Java 21+. The
 * starter is compiled for Java 17, so the factory comes from Spring's {@link
 * VirtualThreadTaskExecutor}, which calls {@code Thread.ofVirtual()} on Java 21+ (multi-release jar).
 * The test is Spring Boot's {@code Threading.VIRTUAL} (the property on Java 21+), written out because
 * Spring Boot 4 moved that class to another package.
 */
public final class VirtualThreads {

    private static final Logger log = LoggerFactory.getLogger(VirtualThreads.class);

    /** Name prefix of handler threads. */
    public static final String THREAD_NAME_PREFIX = "postbox-worker-";

    private VirtualThreads() {}

    /** A virtual thread factory when the application asked for virtual threads, else {@code null}. */
    public static @Nullable ThreadFactory factoryIfEnabled(Environment environment) {
        boolean asked = environment.getProperty("spring.threads.virtual.enabled", Boolean.class, false);
        if (!asked || Runtime.version().feature() < 21) {
            if (asked) {
                log.info(
                        "spring.threads.virtual.enabled=true, but Java {} has no virtual threads:"
                                + " Postbox handlers run on platform threads",
                        Runtime.version().feature());
            }
            return null;
        }
        return new VirtualThreadTaskExecutor(THREAD_NAME_PREFIX).getVirtualThreadFactory();
    }
}
