package dev.postbox.http.webhook;

/** No endpoint of that name is registered. */
public final class UnknownEndpointException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String endpoint;

    public UnknownEndpointException(String endpoint) {
        super("No webhook endpoint named '" + endpoint + "' is registered: register it first with"
                + " EndpointRegistry.register(Endpoint.builder(\"" + endpoint + "\", url)...build())"
                + " or check the name");
        this.endpoint = endpoint;
    }

    public String endpoint() {
        return endpoint;
    }
}
