package dev.postbox.spring.internal;

import dev.postbox.spring.OutboxEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.filter.AnnotationTypeFilter;

/**
 * The types annotated {@link OutboxEvent} (directly or through a composed annotation) in some
 * packages, read from their class files without loading them: event classes are no beans, so a
 * start-up check finds them by scanning the application's packages.
 */
final class OutboxEventTypes {

    /** One annotated type: its name and the annotation's kind and destination. */
    record Found(String typeName, String kind, String destination) {}

    private OutboxEventTypes() {}

    static List<Found> in(List<String> packages, @Nullable ClassLoader classLoader) {
        ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false) {
            @Override
            protected boolean isCandidateComponent(AnnotatedBeanDefinition definition) {
                // Any type carrying the annotation: records, static nested classes, interfaces.
                return definition.getMetadata().isIndependent();
            }
        };
        scanner.addIncludeFilter(new AnnotationTypeFilter(OutboxEvent.class));
        scanner.setResourceLoader(new DefaultResourceLoader(classLoader));
        List<Found> found = new ArrayList<>();
        for (String pkg : packages) {
            for (BeanDefinition candidate : scanner.findCandidateComponents(pkg)) {
                if (!(candidate instanceof AnnotatedBeanDefinition annotated)) {
                    continue;
                }
                AnnotationMetadata metadata = annotated.getMetadata();
                Map<String, @Nullable Object> attributes =
                        metadata.getAnnotationAttributes(OutboxEvent.class.getName());
                if (attributes != null) {
                    found.add(new Found(
                            metadata.getClassName(),
                            String.valueOf(attributes.get("kind")),
                            String.valueOf(attributes.get("destination"))));
                }
            }
        }
        return found;
    }
}
