package dev.postbox.spring.internal;

import java.lang.reflect.Method;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcutAdvisor;
import org.springframework.core.Ordered;

/**
 * Applies {@link EnqueueMethodInterceptor} to {@link dev.postbox.spring.Enqueue}-annotated methods of
 * any bean. Its order is the lowest precedence, like Spring's transaction advisor; because it is
 * registered after that advisor (the auto-configuration runs after the transaction one), it runs
 * inside the transaction.
 */
public final class EnqueueAdvisor extends StaticMethodMatcherPointcutAdvisor {

    public EnqueueAdvisor(EnqueueMethodInterceptor interceptor) {
        super(interceptor);
        setOrder(Ordered.LOWEST_PRECEDENCE);
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        return EnqueueMethod.isAnnotated(specific) || EnqueueMethod.isAnnotated(method);
    }
}
