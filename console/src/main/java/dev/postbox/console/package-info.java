/**
 * The Postbox operator console: server-rendered pages inside a Spring MVC application to see and
 * steer queues, jobs, dead letters, webhook endpoints and schedules. Add {@code postbox-console}
 * (Spring Boot 4) or {@code postbox-console-boot3} (Spring Boot 3.5) and open {@code /postbox};
 * see {@link dev.postbox.console.PostboxConsoleProperties} for the settings and docs/console.md
 * for the security model.
 */
@NullMarked
package dev.postbox.console;

import org.jspecify.annotations.NullMarked;
