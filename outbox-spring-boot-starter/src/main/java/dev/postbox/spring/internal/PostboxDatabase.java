package dev.postbox.spring.internal;

import dev.postbox.PostboxSchema;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanNotOfRequiredTypeException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;

/**
 * The {@code DataSource} Postbox uses and the transaction manager for its transactional handlers,
 * as the application chose them: {@code postbox.datasource} / {@code postbox.transaction-manager}
 * (bean names), the {@link dev.postbox.spring.PostboxDataSource @PostboxDataSource} qualifier, or
 * the only (or {@code @Primary}) bean. Every Postbox bean of the starter works on this one.
 *
 * @param dataSource Postbox's tables live here
 * @param transactionManager manages {@code dataSource}; {@code null}: Postbox makes its own
 */
public record PostboxDatabase(
        DataSource dataSource, @Nullable PlatformTransactionManager transactionManager) {

    /**
     * The same choice with Postbox's statements qualified for its schema ({@code postbox.schema.name}):
     * the DataSource itself for the search_path default.
     */
    public PostboxDatabase in(PostboxSchema schema) {
        return new PostboxDatabase(schema.dataSource(dataSource), transactionManager);
    }

    /** What the application asked for, as the auto-configuration hands it in. */
    public record Choice(
            @Nullable String dataSourceName,
            ObjectProvider<DataSource> qualifiedDataSource,
            ObjectProvider<DataSource> dataSources,
            @Nullable String transactionManagerName,
            ObjectProvider<PlatformTransactionManager> qualifiedTransactionManager,
            ObjectProvider<PlatformTransactionManager> transactionManagers) {}

    /**
     * Resolves the application's choice.
     *
     * @throws IllegalStateException naming the beans and the property or annotation to use when the
     *     choice is missing, ambiguous or contradictory
     */
    public static PostboxDatabase resolve(ListableBeanFactory beanFactory, Choice choice) {
        DataSource dataSource = pick(
                beanFactory,
                DataSource.class,
                "postbox.datasource",
                choice.dataSourceName(),
                choice.qualifiedDataSource(),
                choice.dataSources().getIfUnique());
        if (dataSource == null) {
            throw new IllegalStateException(
                    "Postbox found " + names(beanFactory, DataSource.class).size()
                            + " DataSource beans " + names(beanFactory, DataSource.class)
                            + " and cannot tell which one holds its tables. Mark that bean @PostboxDataSource, set"
                            + " postbox.datasource=<bean name>, or make it @Primary.");
        }
        PlatformTransactionManager chosen = pick(
                beanFactory,
                PlatformTransactionManager.class,
                "postbox.transaction-manager",
                choice.transactionManagerName(),
                choice.qualifiedTransactionManager(),
                null);
        if (chosen != null) {
            if (managesAnother(chosen, dataSource)) {
                throw new IllegalStateException("The transaction manager chosen for Postbox manages another"
                        + " DataSource than Postbox's: transactional handlers would not commit with their job."
                        + " Choose the one that manages Postbox's DataSource (postbox.transaction-manager or"
                        + " @PostboxDataSource).");
            }
            return new PostboxDatabase(dataSource, chosen);
        }
        return new PostboxDatabase(dataSource, managing(dataSource, choice.transactionManagers()));
    }

    /** The transaction manager that manages the DataSource: the only one unless it manages another. */
    private static @Nullable PlatformTransactionManager managing(
            DataSource dataSource, ObjectProvider<PlatformTransactionManager> candidates) {
        List<PlatformTransactionManager> all = candidates.orderedStream().toList();
        List<PlatformTransactionManager> managing = all.stream()
                .filter(tm -> tm instanceof ResourceTransactionManager r && r.getResourceFactory() == dataSource)
                .toList();
        if (managing.size() == 1) {
            return managing.get(0);
        }
        PlatformTransactionManager unique = candidates.getIfUnique();
        return unique != null && !managesAnother(unique, dataSource) ? unique : null;
    }

    private static boolean managesAnother(PlatformTransactionManager tm, DataSource dataSource) {
        return tm instanceof ResourceTransactionManager r
                && r.getResourceFactory() instanceof DataSource other
                && other != dataSource;
    }

    private static <T> @Nullable T pick(
            ListableBeanFactory beanFactory,
            Class<T> type,
            String property,
            @Nullable String name,
            ObjectProvider<T> qualified,
            @Nullable T fallback) {
        T marked;
        try {
            marked = qualified.getIfAvailable();
        } catch (NoUniqueBeanDefinitionException e) {
            throw new IllegalStateException("Several " + type.getSimpleName() + " beans are marked @PostboxDataSource"
                    + (e.getBeanNamesFound() == null ? "" : " " + e.getBeanNamesFound())
                    + "; mark exactly one.");
        }
        if (name == null || name.isBlank()) {
            return marked != null ? marked : fallback;
        }
        T named;
        try {
            named = beanFactory.getBean(name, type);
        } catch (NoSuchBeanDefinitionException | BeanNotOfRequiredTypeException e) {
            throw new IllegalStateException(property + "=" + name + " names no " + type.getSimpleName() + " bean; the "
                    + type.getSimpleName() + " beans are " + names(beanFactory, type) + ".");
        }
        if (marked != null && marked != named) {
            throw new IllegalStateException(property + "=" + name + " and the @PostboxDataSource "
                    + type.getSimpleName() + " bean are different beans; keep one of the two choices.");
        }
        return named;
    }

    private static List<String> names(ListableBeanFactory beanFactory, Class<?> type) {
        return Arrays.asList(beanFactory.getBeanNamesForType(type, true, false));
    }
}
