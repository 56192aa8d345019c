package dev.postbox.benchmarks;

import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.signing.WebhookVerifier;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The http-floor scenario's receiver in its own JVM: a {@link WebhookReceiver} whose URL follows
 * the ready line. On {@code stop} it reports what it received and how many signatures verified.
 *
 * <p>Arguments: receiver-threads; the signing secret comes on the first line of standard input
 * (never on the command line, where every process could read it).
 */
public final class ReceiverChild {

    private ReceiverChild() {}

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        WebhookSecret secret = WebhookSecret.parse(ChildJvm.readLine());
        try (WebhookReceiver receiver = new WebhookReceiver(
                threads, WebhookVerifier.builder().secret(secret).build())) {
            ChildJvm.ready(receiver.url());
            ChildJvm.awaitCommand("stop");
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("received", receiver.received.get());
            r.put("signaturesVerified", receiver.verified.get());
            r.put("signatureFailures", receiver.badSignatures.get());
            ChildJvm.result(r);
        }
        System.exit(0);
    }
}
