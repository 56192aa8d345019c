package dev.postbox.spring.test;

import dev.postbox.JsonCodec;
import dev.postbox.Postbox;
import dev.postbox.spring.internal.PostboxDatabase;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Declares the {@link PostboxTestHelper} bean for {@link PostboxTest @PostboxTest}. */
@Configuration(proxyBeanMethods = false)
public class PostboxTestHelperConfiguration {

    @Bean
    @ConditionalOnMissingBean
    PostboxTestHelper postboxTestHelper(Postbox postbox, PostboxDatabase database, JsonCodec codec) {
        return new PostboxTestHelper(postbox, database.dataSource(), codec);
    }
}
