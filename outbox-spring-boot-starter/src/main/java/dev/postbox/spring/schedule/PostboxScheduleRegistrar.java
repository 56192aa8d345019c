package dev.postbox.spring.schedule;

import dev.postbox.cron.ScheduleRegistry;
import dev.postbox.spring.internal.StartupRetry;
import dev.postbox.spring.schedule.PostboxScheduleAdmin.ScheduleView;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;

/**
 * Upserts the declared schedules into {@code outbox_schedule} at start-up, once the schema is in
 * place, and pauses those switched off with {@code postbox.schedules.<name>.enabled=false}. Safe
 * when every node starts at once. A failure (schema missing, payload template not JSON) fails the
 * start-up.
 */
public final class PostboxScheduleRegistrar implements InitializingBean {

    private static final Logger log = LoggerFactory.getLogger(PostboxScheduleRegistrar.class);

    private final ScheduleRegistry registry;
    private final ScheduleDeclarations declarations;
    private final PostboxScheduleAdmin admin;

    public PostboxScheduleRegistrar(
            ScheduleRegistry registry, ScheduleDeclarations declarations, PostboxScheduleAdmin admin) {
        this.registry = registry;
        this.declarations = declarations;
        this.admin = admin;
    }

    @Override
    public void afterPropertiesSet() {
        if (declarations.definitions().isEmpty() && declarations.disabled().isEmpty()) {
            return;
        }
        List<String> added =
                StartupRetry.call("schedule registration", () -> registry.register(declarations.definitions()));
        Map<String, ScheduleView> stored = StartupRetry.call("schedule registration", () -> admin.schedules(0)).stream()
                .collect(Collectors.toMap(ScheduleView::name, Function.identity()));
        for (String name : declarations.disabled()) {
            if (stored.containsKey(name) && registry.pause(name)) {
                log.info("Schedule '{}' paused: postbox.schedules.{}.enabled=false", name, name);
            }
        }
        for (var definition : declarations.definitions()) {
            ScheduleView view = stored.get(definition.name());
            if (view != null && view.paused()) {
                log.warn(
                        "Schedule '{}' is declared but paused in the database, so it creates no jobs. Resume it with"
                                + " POST /actuator/postboxschedules/{} {{\"paused\": false}} or ScheduleRegistry.resume.",
                        definition.name(),
                        definition.name());
            }
        }
        log.info(
                "Postbox schedules: {} declared ({} new){}",
                declarations.definitions().size(),
                added.size(),
                declarations.disabled().isEmpty() ? "" : ", disabled " + declarations.disabled());
    }
}
