/**
 * Webhook delivery ({@code postbox-delivery-http}) in Spring Boot: {@code postbox.http.*} and
 * {@code postbox.inbox.*} properties, the delivery module installed into the starter's engine, the
 * endpoints declared in properties, the receiving {@code WebhookInbox} with a Spring MVC helper, and
 * Micrometer metrics of deliveries.
 */
@NullMarked
package dev.postbox.spring.http;

import org.jspecify.annotations.NullMarked;
