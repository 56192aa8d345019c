package dev.postbox.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** The one idiom of a refused argument: an {@link IllegalArgumentException} with exactly this message. */
public final class Refusals {

    private Refusals() {}

    /** Asserts that {@code call} throws an {@link IllegalArgumentException} whose message is {@code message}. */
    public static void refused(ThrowingCallable call, String message) {
        assertThatThrownBy(call)
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }
}
