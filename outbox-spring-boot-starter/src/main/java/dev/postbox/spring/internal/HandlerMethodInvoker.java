package dev.postbox.spring.internal;

import dev.postbox.Job;
import dev.postbox.JobHandler;
import dev.postbox.PermanentJobFailure;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ReflectionUtils;

/**
 * Runs an {@link dev.postbox.spring.OutboxHandler} method for a job: fetches the bean (at the first
 * job, not at startup), reads the payload into the method's payload parameter type and passes the
 * {@link Job} where asked. Exceptions of the method reach the engine unwrapped, so {@code
 * PermanentJobFailure}, {@code RetryJobAfter} and {@code SnoozeJob} work as documented.
 */
public final class HandlerMethodInvoker implements JobHandler {

    private final BeanFactory beanFactory;
    private final HandlerMethod handler;
    private final HandlerParameters parameters;

    public HandlerMethodInvoker(BeanFactory beanFactory, HandlerMethod handler) {
        this.beanFactory = beanFactory;
        this.handler = handler;
        this.parameters = HandlerParameters.of(handler);
    }

    @Override
    public void handle(Job job) throws Exception {
        Object bean = beanFactory.getBean(handler.beanName());
        Method method = AopUtils.selectInvocableMethod(handler.method(), bean.getClass());
        ReflectionUtils.makeAccessible(method);
        Object[] args = arguments(job);
        try {
            method.invoke(bean, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    private @Nullable Object[] arguments(Job job) {
        @Nullable Object[] args = new Object[parameters.count()];
        if (parameters.jobIndex() >= 0) {
            args[parameters.jobIndex()] = job;
        }
        if (parameters.payloadIndex() >= 0) {
            args[parameters.payloadIndex()] = payload(job, parameters.payloadType());
        }
        return args;
    }

    private Object payload(Job job, Class<?> type) {
        try {
            return job.payload(type);
        } catch (IllegalArgumentException e) {
            // The stored JSON will not become readable by retrying: dead-letter at once.
            throw new PermanentJobFailure(
                    "The payload of job " + job.id() + " (kind '" + job.kind() + "') cannot be bound to "
                            + handler.describe() + ": " + e.getMessage(),
                    e);
        }
    }

    @Override
    public String toString() {
        return "@OutboxHandler " + handler.describe();
    }
}
