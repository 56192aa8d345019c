package dev.postbox.spring.http;

import dev.postbox.http.inbox.WebhookInbox;
import dev.postbox.spring.internal.PostboxDatabase;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The receiving side: a {@link WebhookInbox} on the application's {@code DataSource} when {@code
 * postbox.inbox.secrets} is set, and with Spring MVC a {@link WebhookInboxMvc} that answers a request
 * with the inbox's status. Independent of the sending side: a receiver needs no Postbox engine.
 */
@AutoConfiguration(
        afterName = {
            "dev.postbox.spring.PostboxAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
            // Spring Boot 3.5
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration"
        })
@ConditionalOnClass(WebhookInbox.class)
@ConditionalOnBean(DataSource.class)
@Conditional(PostboxInboxAutoConfiguration.OnInboxSecrets.class)
@EnableConfigurationProperties(PostboxInboxProperties.class)
public final class PostboxInboxAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    WebhookInbox postboxWebhookInbox(
            ObjectProvider<PostboxDatabase> postboxDatabase,
            ObjectProvider<DataSource> dataSource,
            PostboxInboxProperties properties,
            ObjectProvider<PlatformTransactionManager> transactionManager) {
        // Postbox's DataSource (postbox.datasource / @PostboxDataSource); a receiver without the engine
        // (postbox.enabled=false) uses the application's only DataSource.
        PostboxDatabase database = postboxDatabase.getIfAvailable(() -> new PostboxDatabase(
                dataSource.getObject(), managing(dataSource.getObject(), transactionManager.getIfUnique())));
        WebhookInbox.Builder b = WebhookInbox.builder(database.dataSource())
                .tolerance(properties.getTolerance())
                .maxBodyBytes(properties.getMaxBodyBytes())
                .table(properties.getTable());
        for (int i = 0; i < properties.getSecrets().size(); i++) {
            try {
                b.secret(properties.getSecrets().get(i));
            } catch (IllegalArgumentException e) {
                // WebhookSecret never echoes the secret in its messages.
                throw new IllegalStateException("postbox.inbox.secrets[" + i + "]: " + e.getMessage(), e);
            }
        }
        if (database.transactionManager() != null) {
            // The application's transaction manager, so that the handler's writes join the inbox transaction.
            b.transactionManager(database.transactionManager());
        }
        return b.build();
    }

    private static @Nullable PlatformTransactionManager managing(
            DataSource dataSource, @Nullable PlatformTransactionManager tm) {
        return tm instanceof DataSourceTransactionManager dstm && dstm.getDataSource() != dataSource ? null : tm;
    }

    /** The Spring MVC helper, in servlet web applications. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(
            name = {"org.springframework.web.servlet.DispatcherServlet", "jakarta.servlet.http.HttpServletRequest"})
    static class Mvc {

        @Bean
        @ConditionalOnMissingBean
        WebhookInboxMvc postboxWebhookInboxMvc(WebhookInbox inbox) {
            return new WebhookInboxMvc(inbox);
        }
    }

    /** Matches when {@code postbox.inbox.secrets} holds at least one value (list or indexed form). */
    static final class OnInboxSecrets extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            boolean any = Binder.get(context.getEnvironment())
                    .bind("postbox.inbox.secrets", Bindable.listOf(String.class))
                    .map(list -> !list.isEmpty())
                    .orElse(false);
            return any
                    ? ConditionOutcome.match("postbox.inbox.secrets is set")
                    : ConditionOutcome.noMatch("postbox.inbox.secrets is not set");
        }
    }
}
