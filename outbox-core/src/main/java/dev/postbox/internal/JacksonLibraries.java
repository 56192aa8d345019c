package dev.postbox.internal;

import dev.postbox.Jackson2JsonCodec;
import dev.postbox.Jackson3JsonCodec;

/** Which Jackson the class path holds, for {@link dev.postbox.JsonCodec#jackson()}: Jackson 3 first. */
public enum JacksonLibraries {
    JACKSON_3,
    JACKSON_2;

    /**
     * The Jackson to use with the given class loader.
     *
     * @throws IllegalStateException naming both artifacts when neither is present
     */
    public static JacksonLibraries detect(ClassLoader classLoader) {
        if (isPresent(Jackson3JsonCodec.MAPPER_CLASS, classLoader)) {
            return JACKSON_3;
        }
        if (isPresent(Jackson2JsonCodec.MAPPER_CLASS, classLoader)) {
            return JACKSON_2;
        }
        throw new IllegalStateException("Postbox writes and reads payloads as JSON with Jackson, but neither Jackson 3"
                + " nor Jackson 2 is on the class path. Add tools.jackson.core:jackson-databind (Jackson 3, as"
                + " Spring Boot 4 has it) or com.fasterxml.jackson.core:jackson-databind (Jackson 2, as Spring Boot 3"
                + " has it), or give Postbox your own dev.postbox.JsonCodec.");
    }

    private static boolean isPresent(String className, ClassLoader classLoader) {
        try {
            Class.forName(className, false, classLoader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
