/**
 * The {@code postbox} actuator endpoint: queue summary, job lookup with attempt history, dead-letter
 * list, and (when {@code postbox.admin.write-enabled=true}) replay, purge, cancel, pause and resume.
 */
@NullMarked
package dev.postbox.spring.endpoint;

import org.jspecify.annotations.NullMarked;
