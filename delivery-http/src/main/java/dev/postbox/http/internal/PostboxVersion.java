package dev.postbox.http.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The Postbox version, from a resource filtered at build time. */
public final class PostboxVersion {

    /** The class path resource holding the version (listed in the native-image hints). */
    public static final String RESOURCE = "dev/postbox/http/version.properties";

    private static final String VERSION = load();

    private PostboxVersion() {}

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}, or {@code dev} when run from unfiltered sources. */
    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = PostboxVersion.class.getResourceAsStream("/" + RESOURCE)) {
            if (in == null) {
                return "dev";
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version", "dev");
            return version.startsWith("${") ? "dev" : version;
        } catch (IOException e) {
            return "dev";
        }
    }
}
