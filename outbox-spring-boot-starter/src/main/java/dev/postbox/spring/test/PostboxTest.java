package dev.postbox.spring.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;

/**
 * For Spring tests of applications using Postbox, next to {@code @SpringBootTest}: switches the
 * background worker off ({@code postbox.worker.enabled=false}) so that jobs run only when the test
 * calls {@link PostboxTestHelper#runDueJobs()}, and provides a {@link PostboxTestHelper} bean.
 *
 * <pre>{@code
 * @SpringBootTest
 * @PostboxTest
 * class OrderServiceTest {
 *     @Autowired OrderService orders;
 *     @Autowired PostboxTestHelper postbox;
 *
 *     @Test
 *     void placingAnOrderReservesStock() {
 *         orders.place(new NewOrder("sku-1", 2));
 *         postbox.assertEnqueued("reserve-stock", Reservation.class, r -> r.sku().equals("sku-1"));
 *         assertThat(postbox.runDueJobs()).isEqualTo(1);
 *     }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@TestPropertySource(properties = "postbox.worker.enabled=false")
@Import(PostboxTestHelperConfiguration.class)
public @interface PostboxTest {}
