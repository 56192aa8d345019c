package dev.postbox.spring.internal;

import dev.postbox.JobRequest;
import dev.postbox.NoTransactionException;
import dev.postbox.Postbox;
import dev.postbox.TransactionMode;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs an {@link dev.postbox.spring.Enqueue}-annotated method, then writes its jobs through the
 * {@code Outbox} in the caller's transaction. Ordered inside the transaction advice, so the
 * transaction it sees on entry is the one the jobs join. Without a transaction (and with {@code
 * postbox.transaction-mode=required}) it fails before the method runs, so nothing half-happens.
 */
public final class EnqueueMethodInterceptor implements MethodInterceptor {

    private final ObjectProvider<Postbox> postbox;
    private final BeanFactory beanFactory;
    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final Map<MethodClassKey, EnqueueMethod> methods = new ConcurrentHashMap<>();
    private final BrokerDestinationCheck destinations;

    public EnqueueMethodInterceptor(ObjectProvider<Postbox> postbox, BeanFactory beanFactory) {
        this.postbox = postbox;
        this.beanFactory = beanFactory;
        this.destinations = new BrokerDestinationCheck(beanFactory);
    }

    /**
     * Parses and validates the annotations of a method, a broker relay's destination included; used
     * at startup to fail early.
     */
    EnqueueMethod describe(Method method, @Nullable Class<?> targetClass) {
        return methods.computeIfAbsent(new MethodClassKey(method, targetClass), key -> {
            EnqueueMethod described = EnqueueMethod.of(method, parser);
            for (JobTemplate template : described.templates()) {
                destinations.check(template.where(), template.kind(), template.destination());
            }
            return described;
        });
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        EnqueueMethod enqueueMethod = describe(specific, targetClass);
        Postbox engine = postbox.getObject();
        requireTransaction(engine, specific, enqueueMethod);

        Object result = invocation.proceed();

        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                new EnqueueExpressionRoot(specific, invocation.getArguments(), target, result),
                specific,
                invocation.getArguments(),
                parameterNames);
        context.setVariable("result", result);
        context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        List<JobRequest> requests = new ArrayList<>();
        for (JobTemplate template : enqueueMethod.templates()) {
            if (template.applies(context)) {
                requests.add(template.toRequest(context, () -> result));
            }
        }
        if (!requests.isEmpty()) {
            engine.outbox().enqueueAll(requests);
        }
        return result;
    }

    private static void requireTransaction(Postbox engine, Method method, EnqueueMethod enqueueMethod) {
        if (engine.config().transactionMode() == TransactionMode.REQUIRED
                && !TransactionSynchronizationManager.isActualTransactionActive()) {
            String kinds = enqueueMethod.templates().stream()
                    .map(JobTemplate::kind)
                    .reduce((a, b) -> a + "', '" + b)
                    .orElse("");
            throw new NoTransactionException(MethodNames.describe(method) + " writes Postbox job(s) of kind '" + kinds
                    + "' with @Enqueue, but no transaction is active, so the jobs could not commit atomically with"
                    + " its changes. Annotate it (or its caller) with @Transactional, or set"
                    + " postbox.transaction-mode=optional to write jobs on their own. The method was not run.");
        }
    }

    /**
     * The SpEL root object of {@code @Enqueue} expressions: {@code #root.method}, {@code #root.args},
     * {@code #root.target}, {@code #root.result}.
     */
    public record EnqueueExpressionRoot(
            Method method,
            @Nullable Object[] args,
            @Nullable Object target,
            @Nullable Object result) {}
}
