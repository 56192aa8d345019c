package dev.postbox.http.ssrf;

import dev.postbox.Require;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which destination ports the {@link SsrfGuard} lets Postbox deliver to: a port must be in the
 * allowed set and not in the denied set. The defaults allow the web ports (80, 443) and every
 * unprivileged port (1024–65535) except the well-known ports of internal services (databases,
 * caches, brokers, container and cluster control planes), so that an endpoint URL cannot turn
 * Postbox into a client of Redis on {@code :6379} or of the Docker API on {@code :2375}, even on an
 * allow-listed host. Privileged ports other than 80 and 443 (SSH, SMTP, LDAP, SMB…) are refused by
 * the allowed set.
 *
 * <p>Entries are a port ({@code 8443}) or an inclusive range ({@code 1024-65535}) between 1 and
 * 65535. The port checked is the URL's (its scheme's default when the URL names none); redirects are
 * never followed, so no other port is reached. Immutable.
 */
public final class PortPolicy {

    /** The configuration property of the allowed ports, named in refusal messages. */
    public static final String ALLOWED_PROPERTY = "postbox.http.allowed-ports";

    /** The configuration property of the denied ports, named in refusal messages. */
    public static final String DENIED_PROPERTY = "postbox.http.denied-ports";

    /** Allowed by default: the web ports and every unprivileged port. */
    public static final List<String> DEFAULT_ALLOWED = List.of("80", "443", "1024-65535");

    /** The well-known ports of internal services above 1023, by service, refused by default. */
    private static final Map<Integer, String> INTERNAL_SERVICES = Map.ofEntries(
            Map.entry(1080, "SOCKS proxy"),
            Map.entry(1433, "SQL Server"),
            Map.entry(1521, "Oracle"),
            Map.entry(2049, "NFS"),
            Map.entry(2181, "ZooKeeper"),
            Map.entry(2375, "Docker API"),
            Map.entry(2376, "Docker API over TLS"),
            Map.entry(2379, "etcd"),
            Map.entry(2380, "etcd peer"),
            Map.entry(3306, "MySQL"),
            Map.entry(3389, "Remote Desktop"),
            Map.entry(4222, "NATS"),
            Map.entry(4369, "Erlang port mapper"),
            Map.entry(5432, "PostgreSQL"),
            Map.entry(5672, "AMQP"),
            Map.entry(5984, "CouchDB"),
            Map.entry(6379, "Redis"),
            Map.entry(6443, "Kubernetes API"),
            Map.entry(8200, "Vault"),
            Map.entry(8500, "Consul"),
            Map.entry(9042, "Cassandra"),
            Map.entry(9092, "Kafka"),
            Map.entry(9200, "Elasticsearch"),
            Map.entry(9300, "Elasticsearch transport"),
            Map.entry(10250, "kubelet"),
            Map.entry(10255, "kubelet read-only"),
            Map.entry(11211, "memcached"),
            Map.entry(15672, "RabbitMQ management"),
            Map.entry(27017, "MongoDB"));

    /** Denied by default: {@link #INTERNAL_SERVICES}' ports, ascending. */
    public static final List<String> DEFAULT_DENIED =
            INTERNAL_SERVICES.keySet().stream().sorted().map(String::valueOf).toList();

    private static final Map<Integer, String> PRIVILEGED_SERVICES = Map.ofEntries(
            Map.entry(21, "FTP"),
            Map.entry(22, "SSH"),
            Map.entry(23, "Telnet"),
            Map.entry(25, "SMTP"),
            Map.entry(53, "DNS"),
            Map.entry(111, "RPC portmapper"),
            Map.entry(135, "MS RPC"),
            Map.entry(139, "NetBIOS"),
            Map.entry(389, "LDAP"),
            Map.entry(445, "SMB"),
            Map.entry(636, "LDAPS"),
            Map.entry(873, "rsync"));

    private static final Pattern ENTRY = Pattern.compile("(\\d{1,5})(?:\\s*-\\s*(\\d{1,5}))?");

    private static final PortPolicy DEFAULTS = of(DEFAULT_ALLOWED, DEFAULT_DENIED);

    private final BitSet allowed;
    private final BitSet denied;
    private final List<String> allowedEntries;
    private final List<String> deniedEntries;

    private PortPolicy(BitSet allowed, BitSet denied, List<String> allowedEntries, List<String> deniedEntries) {
        this.allowed = allowed;
        this.denied = denied;
        this.allowedEntries = allowedEntries;
        this.deniedEntries = deniedEntries;
    }

    /** {@link #DEFAULT_ALLOWED} minus {@link #DEFAULT_DENIED}. */
    public static PortPolicy ofDefaults() {
        return DEFAULTS;
    }

    /**
     * A policy allowing the ports in {@code allowed} that are not in {@code denied}.
     *
     * @throws IllegalArgumentException naming an entry that is not a port or a range of ports
     */
    public static PortPolicy of(Collection<String> allowed, Collection<String> denied) {
        Require.notNull(allowed, "allowed ports");
        Require.notNull(denied, "denied ports");
        return new PortPolicy(
                parse(allowed, ALLOWED_PROPERTY),
                parse(denied, DENIED_PROPERTY),
                List.copyOf(allowed),
                List.copyOf(denied));
    }

    /** Whether Postbox may deliver to {@code port}. */
    public boolean allows(int port) {
        return port >= 1 && port <= 65535 && allowed.get(port) && !denied.get(port);
    }

    /** The allowed entries as given. */
    public List<String> allowedPorts() {
        return allowedEntries;
    }

    /** The denied entries as given. */
    public List<String> deniedPorts() {
        return deniedEntries;
    }

    /**
     * Why {@code port} is refused, and the fix, for an error message; call only for a refused port.
     */
    String refusal(int port) {
        String service = INTERNAL_SERVICES.getOrDefault(port, PRIVILEGED_SERVICES.get(port));
        String what = "port " + port + (service == null ? "" : " (" + service + ")");
        if (denied.get(port)) {
            return what + ", which the port policy refuses as the port of an internal service; if this"
                    + " endpoint really listens there, remove " + port + " from " + DENIED_PROPERTY;
        }
        return what + ", which the port policy does not allow (allowed: " + String.join(", ", allowedEntries)
                + "); use the receiver's https port (443), or add " + port + " to " + ALLOWED_PROPERTY;
    }

    private static BitSet parse(Collection<String> entries, String property) {
        BitSet ports = new BitSet(65536);
        for (String entry : entries) {
            Require.element(entry, property);
            Matcher m = ENTRY.matcher(entry.strip());
            int from = m.matches() ? Integer.parseInt(m.group(1)) : -1;
            int to = m.matches() && m.group(2) != null ? Integer.parseInt(m.group(2)) : from;
            if (from < 1 || to > 65535 || to < from) {
                throw new IllegalArgumentException(property + " entry '" + entry + "' is invalid: use a port (8443) or"
                        + " an inclusive range (1024-65535) between 1 and 65535");
            }
            ports.set(from, to + 1);
        }
        return ports;
    }

    @Override
    public String toString() {
        return "PortPolicy[allowed=" + allowedEntries + ", denied=" + deniedEntries + "]";
    }
}
