package dev.postbox.spring;

import dev.postbox.spring.internal.PostboxReflectiveProcessor;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/** The container of repeated {@link PostboxSchedule @PostboxSchedule} annotations on one method. */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(PostboxReflectiveProcessor.class)
public @interface PostboxSchedules {

    /** The schedules declared on the method. */
    PostboxSchedule[] value();
}
