package dev.postbox.spring.http;

import dev.postbox.http.webhook.WebhookInbox;
import javax.sql.DataSource;
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
            "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration"
        })
@ConditionalOnClass(WebhookInbox.class)
@ConditionalOnBean(DataSource.class)
@Conditional(PostboxInboxAutoConfiguration.OnInboxSecrets.class)
@EnableConfigurationProperties(PostboxInboxProperties.class)
public final class PostboxInboxAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    WebhookInbox postboxWebhookInbox(
            DataSource dataSource,
            PostboxInboxProperties properties,
            ObjectProvider<PlatformTransactionManager> transactionManager) {
        WebhookInbox.Builder b = WebhookInbox.builder(dataSource)
                .tolerance(properties.getTolerance())
                .table(properties.getTable());
        for (int i = 0; i < properties.getSecrets().size(); i++) {
            try {
                b.secret(properties.getSecrets().get(i));
            } catch (IllegalArgumentException e) {
                // WebhookSecret never echoes the secret in its messages.
                throw new IllegalStateException("postbox.inbox.secrets[" + i + "]: " + e.getMessage(), e);
            }
        }
        PlatformTransactionManager tm = transactionManager.getIfUnique();
        if (tm != null && !(tm instanceof DataSourceTransactionManager dstm && dstm.getDataSource() != dataSource)) {
            // The application's transaction manager, so that the handler's writes join the inbox transaction.
            b.transactionManager(tm);
        }
        return b.build();
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
