/**
 * The {@code postbox} health contributor: database reachable, age of the oldest claimable job
 * against its SLO, dead-letter depth against a threshold.
 */
@NullMarked
package dev.postbox.spring.health;

import org.jspecify.annotations.NullMarked;
