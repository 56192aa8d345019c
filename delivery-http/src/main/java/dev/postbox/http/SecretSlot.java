package dev.postbox.http;

import dev.postbox.Require;
import java.util.Locale;

/**
 * Where a stored secret belongs: a webhook endpoint and a field of it (its signing secrets, or one
 * header's value). {@link AesGcmSecretCipher} binds every value it seals to its slot (the slot is
 * part of the authenticated data), so a value copied to another endpoint's row, or from one field
 * to another, no longer opens.
 *
 * @param endpoint the endpoint's name
 * @param field {@code signing-secret}, or {@code header:<name>} with the header name in lower case
 *     (HTTP header names are case-insensitive, so renaming {@code Authorization} to {@code
 *     authorization} keeps its value readable)
 */
public record SecretSlot(String endpoint, String field) {

    /** The field of an endpoint's signing secrets (all of them: their order is not bound). */
    public static final String SIGNING_SECRET = "signing-secret";

    public SecretSlot {
        Require.notBlank(endpoint, "endpoint");
        Require.notBlank(field, "field");
    }

    /** The slot of an endpoint's signing secrets. */
    public static SecretSlot signingSecret(String endpoint) {
        return new SecretSlot(endpoint, SIGNING_SECRET);
    }

    /** The slot of the value of one of an endpoint's headers. */
    public static SecretSlot header(String endpoint, String headerName) {
        return new SecretSlot(
                endpoint, "header:" + Require.notBlank(headerName, "headerName").toLowerCase(Locale.ROOT));
    }

    /** Names the slot for an error message, e.g. {@code webhook endpoint 'billing', field 'header:authorization'}. */
    @Override
    public String toString() {
        return "webhook endpoint '" + endpoint + "', field '" + field + "'";
    }
}
