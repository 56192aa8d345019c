package dev.postbox.spring.internal;

import dev.postbox.spring.Enqueue;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.ExpressionParser;

/** The jobs one {@link Enqueue}-annotated method writes, parsed and validated. */
final class EnqueueMethod {

    private final List<JobTemplate> templates;

    private EnqueueMethod(List<JobTemplate> templates) {
        this.templates = templates;
    }

    static boolean isAnnotated(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, Enqueue.class)
                || AnnotatedElementUtils.hasAnnotation(method, Enqueue.List.class);
    }

    static Set<Enqueue> annotations(Method method) {
        return AnnotatedElementUtils.findMergedRepeatableAnnotations(method, Enqueue.class);
    }

    static EnqueueMethod of(Method method, ExpressionParser parser) {
        List<JobTemplate> templates = new ArrayList<>();
        for (Enqueue enqueue : annotations(method)) {
            String where = "@Enqueue(kind = \"" + enqueue.kind() + "\") on " + MethodNames.describe(method);
            JobTemplate template = new JobTemplate(
                    parser,
                    where,
                    enqueue.kind(),
                    enqueue.queue(),
                    enqueue.destination(),
                    enqueue.payload(),
                    enqueue.idempotencyKey(),
                    enqueue.orderingKey(),
                    enqueue.tenant(),
                    enqueue.condition(),
                    enqueue.delay(),
                    enqueue.priority(),
                    enqueue.tags());
            if (!template.hasPayloadExpression()) {
                Class<?> returnType = method.getReturnType();
                if (returnType == void.class || returnType == Void.class) {
                    throw new IllegalStateException(where + ": the method returns nothing, so there is no default"
                            + " payload. Set payload, e.g. payload = \"#p0\" or payload = \"#order\".");
                }
            }
            if (CompletionStage.class.isAssignableFrom(method.getReturnType())
                    || Future.class.isAssignableFrom(method.getReturnType())) {
                throw new IllegalStateException(where + ": asynchronous methods are not supported: the job must be"
                        + " written in the caller's transaction while the method runs. Annotate a synchronous method.");
            }
            templates.add(template);
        }
        return new EnqueueMethod(List.copyOf(templates));
    }

    List<JobTemplate> templates() {
        return templates;
    }
}
