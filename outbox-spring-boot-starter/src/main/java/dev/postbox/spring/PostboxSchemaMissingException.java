package dev.postbox.spring;

/**
 * Start-up stopped because Postbox's tables are missing from its database (the fail-fast rule of
 * {@link PostboxSchemaInitializer}). Its message is one short line, because Spring repeats it at
 * every level of the bean creation chain; the full account, what is missing and why ({@link
 * #getDescription()}) and the ways to apply the migrations ({@link #getAction()}), is printed once
 * by Spring Boot's failure analysis ("APPLICATION FAILED TO START").
 */
public class PostboxSchemaMissingException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String description;
    private final String action;

    /**
     * @param summary the one-line message
     * @param description what is missing and why it was not applied
     * @param action the ways to apply the migrations
     */
    public PostboxSchemaMissingException(String summary, String description, String action) {
        super(summary);
        this.description = description;
        this.action = action;
    }

    /** What is missing (the migrations, the objects summarised) and why Postbox did not apply them. */
    public String getDescription() {
        return description;
    }

    /** The ways to apply the missing migrations. */
    public String getAction() {
        return action;
    }
}
