package dev.postbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.StandardEnvironment;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Every postbox.console.* property is in the generated metadata with a description and its real default. */
class ConfigurationMetadataTest {

    @Test
    void everyPropertyIsDescribedWithItsBoundDefault() throws Exception {
        JsonNode metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            metadata = JsonMapper.builder().build().readTree(in);
        }
        PostboxConsoleProperties bound =
                Binder.get(new StandardEnvironment()).bindOrCreate("postbox.console", PostboxConsoleProperties.class);
        Map<String, Object> expected = new HashMap<>();
        expected.put("postbox.console.enabled", bound.isEnabled());
        expected.put("postbox.console.path", bound.getPath());
        expected.put("postbox.console.write-enabled", bound.isWriteEnabled());
        expected.put("postbox.console.role", bound.getRole());
        expected.put("postbox.console.read-role", bound.getReadRole());
        expected.put("postbox.console.allow-anonymous", bound.isAllowAnonymous());
        expected.put("postbox.console.show-payloads", bound.isShowPayloads());
        expected.put("postbox.console.refresh-interval", bound.getRefreshInterval());
        expected.put("postbox.console.page-size", bound.getPageSize());

        Map<String, JsonNode> byName = new HashMap<>();
        for (JsonNode p : metadata.get("properties")) {
            if (p.get("name").asString().startsWith("postbox.console.")) {
                byName.put(p.get("name").asString(), p);
            }
        }
        assertThat(byName.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Map.Entry<String, JsonNode> e : byName.entrySet()) {
            assertThat(e.getValue().hasNonNull("description")).as(e.getKey()).isTrue();
            JsonNode shown = e.getValue().get("defaultValue");
            Object actual = expected.get(e.getKey());
            if (actual instanceof java.time.Duration d) {
                assertThat(shown).as(e.getKey()).isNotNull();
                assertThat(org.springframework.boot.convert.DurationStyle.detectAndParse(shown.asString()))
                        .as(e.getKey())
                        .isEqualTo(d);
            } else {
                assertThat(shown).as(e.getKey()).isNotNull();
                assertThat(shown.asString()).as(e.getKey()).isEqualTo(String.valueOf(actual));
            }
        }
    }
}
