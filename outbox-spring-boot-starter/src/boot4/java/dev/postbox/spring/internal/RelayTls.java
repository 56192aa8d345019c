package dev.postbox.spring.internal;

import java.security.GeneralSecurityException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundles;

/**
 * The SSL context of a broker relay's TLS settings: the named Spring SSL bundle ({@code
 * spring.ssl.bundle.jks.<name>} or {@code .pem.<name>}: trust store, and a key store for client
 * certificates), or the JVM's default trust store when no bundle is named. Never a context that
 * trusts every certificate.
 */
public final class RelayTls {

    private RelayTls() {}

    /**
     * The context for {@code prefix} ({@code postbox.amqp.ssl}, say).
     *
     * @throws IllegalStateException naming {@code prefix + ".bundle"} when the bundle is not
     *     configured or no SSL bundles are available
     */
    public static SSLContext context(String prefix, @Nullable String bundle, @Nullable SslBundles bundles) {
        if (bundle == null || bundle.isBlank()) {
            try {
                TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init((java.security.KeyStore) null);
                SSLContext context = SSLContext.getInstance("TLS");
                context.init(null, trust.getTrustManagers(), null);
                return context;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(
                        prefix + ": the JVM's default trust store cannot be loaded (" + e.getMessage()
                                + "); name an SSL bundle with " + prefix + ".bundle",
                        e);
            }
        }
        if (bundles == null) {
            throw new IllegalStateException(prefix + ".bundle is '" + bundle + "' but no SSL bundles are configured:"
                    + " define it under spring.ssl.bundle.jks." + bundle + " or spring.ssl.bundle.pem." + bundle);
        }
        try {
            return bundles.getBundle(bundle).createSslContext();
        } catch (NoSuchSslBundleException e) {
            throw new IllegalStateException(prefix + ".bundle is '" + bundle + "', which is not configured: define it"
                    + " under spring.ssl.bundle.jks." + bundle + " or spring.ssl.bundle.pem." + bundle);
        }
    }

    /** Whether {@code host} is this machine: {@code localhost} or a loopback address. */
    public static boolean isLoopback(String host) {
        String h = host.strip();
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        return h.equalsIgnoreCase("localhost")
                || h.startsWith("127.")
                || h.equals("::1")
                || h.equals("0:0:0:0:0:0:0:1");
    }
}
