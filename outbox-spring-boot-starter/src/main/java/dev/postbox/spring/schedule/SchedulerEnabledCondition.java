package dev.postbox.spring.schedule;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** {@code postbox.scheduler.enabled}, defaulting to {@code postbox.worker.enabled} (itself true by default). */
final class SchedulerEnabledCondition extends SpringBootCondition {

    static final String PROPERTY = "postbox.scheduler.enabled";

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        var env = context.getEnvironment();
        Boolean explicit = env.getProperty(PROPERTY, Boolean.class);
        if (explicit != null) {
            return new ConditionOutcome(explicit, PROPERTY + "=" + explicit);
        }
        boolean worker = env.getProperty("postbox.worker.enabled", Boolean.class, true);
        return new ConditionOutcome(worker, PROPERTY + " unset, postbox.worker.enabled=" + worker);
    }
}
