package dev.postbox.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Marks the {@code DataSource} bean Postbox uses when the application has several, and optionally
 * the transaction manager that manages it. Postbox's tables, jobs and (for transactional handlers)
 * the handler's writes live on that {@code DataSource}. The alternative is the property {@code
 * postbox.datasource} (and {@code postbox.transaction-manager}) naming the beans.
 *
 * <pre>{@code
 * @Bean
 * @PostboxDataSource
 * DataSource ordersDataSource() { ... }
 *
 * @Bean
 * @PostboxDataSource
 * PlatformTransactionManager ordersTransactionManager(@PostboxDataSource DataSource ds) {
 *     return new JdbcTransactionManager(ds);
 * }
 * }</pre>
 *
 * <p>Without a marked transaction manager Postbox takes the one that manages its {@code DataSource}
 * (or the only one, unless it manages another {@code DataSource}), else its own.
 */
@Target({ElementType.METHOD, ElementType.FIELD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface PostboxDataSource {}
