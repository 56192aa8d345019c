package dev.postbox.console.internal;

import dev.postbox.spring.endpoint.WebhookEndpointAdmin;
import dev.postbox.spring.endpoint.WebhookEndpointAdmin.EnableView;
import dev.postbox.spring.endpoint.WebhookEndpointAdmin.WebhookEndpointView;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.View;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;
import org.springframework.web.util.UriUtils;

/**
 * Webhook endpoints (present with postbox-delivery-http): success rate and latency over the last
 * hour, current rate and adaptive factor, last errors, disabled reason; enable, disable, rotate and
 * retire secrets.
 */
@Controller
public final class WebhooksController {

    private static final int LAST_ERRORS = 10;

    private final WebhookEndpointAdmin endpoints;
    private final EndpointStatsStore store;
    private final ConsoleViews views;
    private final ConsoleActions actions;

    public WebhooksController(
            WebhookEndpointAdmin endpoints, EndpointStatsStore store, ConsoleViews views, ConsoleActions actions) {
        this.endpoints = endpoints;
        this.store = store;
        this.views = views;
        this.actions = actions;
    }

    @GetMapping("/webhooks")
    public View list(Model model) {
        List<WebhookEndpointView> all = endpoints.list();
        List<String> names = all.stream().map(WebhookEndpointView::name).toList();
        model.addAttribute("endpoints", all);
        model.addAttribute("stats", store.endpointStats(names));
        model.addAttribute("buckets", store.rateBuckets(names));
        model.addAttribute("section", "webhooks");
        return views.page("webhooks");
    }

    @GetMapping("/webhooks/{name}")
    public View endpoint(@PathVariable String name, Model model) {
        WebhookEndpointView e = endpoints
                .get(name)
                .orElseThrow(() -> new ConsoleNotFoundException("No webhook endpoint named '" + name + "'."));
        model.addAttribute("endpoint", e);
        model.addAttribute("stats", store.endpointStats(List.of(name)).get(name));
        model.addAttribute("bucket", store.rateBuckets(List.of(name)).get(name));
        model.addAttribute("errors", store.endpointErrors(name, LAST_ERRORS));
        model.addAttribute("section", "webhooks");
        return views.page("webhook");
    }

    @PostMapping("/webhooks/{name}/enable")
    public View enable(@PathVariable String name, HttpServletRequest request, RedirectAttributes flash) {
        EnableView r = endpoints.enable(name);
        return actions.done(
                request,
                flash,
                "enable endpoint",
                name,
                (r.changed() ? "enabled" : "was enabled already") + ", " + r.resumed() + " waiting deliveries resumed, "
                        + r.replayed() + " dead letters replayed",
                page(name));
    }

    @PostMapping("/webhooks/{name}/disable")
    public View disable(
            @PathVariable String name,
            @RequestParam(required = false) @Nullable String reason,
            HttpServletRequest request,
            RedirectAttributes flash) {
        String given = JobsController.blank(reason);
        String why = given == null ? "disabled in the console by " + actions.principal(request) : given;
        boolean changed = endpoints.disable(name, why);
        return actions.done(
                request,
                flash,
                "disable endpoint",
                name,
                changed ? "deliveries wait until it is enabled" : "was disabled already",
                page(name));
    }

    /** Shows the new secret once, on this response only: it is never logged, stored in the session or redirected. */
    @PostMapping("/webhooks/{name}/rotate-secret")
    public View rotate(@PathVariable String name, HttpServletRequest request, Model model) {
        String secret = endpoints.rotateSecret(name);
        actions.audited(request, "rotate secret of endpoint", name, "new secret added, previous one kept");
        model.addAttribute("endpoint", endpoints.get(name).orElseThrow());
        model.addAttribute("secret", secret);
        model.addAttribute("section", "webhooks");
        return views.page("webhook-secret");
    }

    @PostMapping("/webhooks/{name}/retire-secrets")
    public View retire(@PathVariable String name, HttpServletRequest request, RedirectAttributes flash) {
        int removed = endpoints.retireOldSecrets(name);
        return actions.done(
                request,
                flash,
                "retire old secrets of endpoint",
                name,
                removed + " removed, deliveries are signed with the newest secret only",
                page(name));
    }

    private static String page(String name) {
        return "/webhooks/" + UriUtils.encodePathSegment(name, java.nio.charset.StandardCharsets.UTF_8);
    }
}
