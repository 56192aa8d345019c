/**
 * Helpers for application tests: {@link dev.postbox.spring.test.PostboxTest @PostboxTest} and
 * {@link dev.postbox.spring.test.PostboxTestHelper} assert what was enqueued, run due jobs in the
 * test's thread and move jobs forward in time. Needs {@code spring-test} on the test classpath.
 */
@NullMarked
package dev.postbox.spring.test;

import org.jspecify.annotations.NullMarked;
