package dev.postbox.http;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.stream.Collectors;
import org.slf4j.LoggerFactory;

/** Collects what one logger writes (formatted messages and exception messages) while open. */
public final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture(Logger logger) {
        this.logger = logger;
        appender.start();
        logger.addAppender(appender);
    }

    /** Captures the logger named after {@code type}. */
    public static LogCapture of(Class<?> type) {
        return new LogCapture((Logger) LoggerFactory.getLogger(type));
    }

    /** Every line so far, with the messages of logged exceptions and their causes. */
    public String text() {
        return appender.list.stream()
                .map(e -> e.getFormattedMessage() + (e.getThrowableProxy() == null ? "" : " " + throwable(e)))
                .collect(Collectors.joining("\n"));
    }

    private static String throwable(ILoggingEvent event) {
        StringBuilder b = new StringBuilder();
        for (var t = event.getThrowableProxy(); t != null; t = t.getCause()) {
            b.append(t.getClassName()).append(": ").append(t.getMessage()).append(' ');
        }
        return b.toString();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
    }
}
