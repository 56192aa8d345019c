package dev.postbox.spring.internal;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when a broker relay has at least one destination configured ({@code
 * <prefix>.destinations.<name>.*}): a relay with none is not built, so the broker's module on the
 * classpath alone changes nothing.
 */
public abstract class RelayDestinationsCondition extends SpringBootCondition {

    private final String prefix;

    protected RelayDestinationsCondition(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConfigurationPropertyName destinations = ConfigurationPropertyName.of(prefix + ".destinations");
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(context.getEnvironment())) {
            if (source.containsDescendantOf(destinations) == ConfigurationPropertyState.PRESENT) {
                return ConditionOutcome.match(prefix + ".destinations is set");
            }
        }
        return ConditionOutcome.noMatch("no " + prefix + ".destinations.* property");
    }
}
