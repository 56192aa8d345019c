package dev.postbox.chaos;

import static dev.postbox.chaos.Checker.map;
import static dev.postbox.chaos.Checker.one;
import static dev.postbox.chaos.Checker.texts;

import java.sql.SQLException;
import java.sql.Statement;

/** The tenant dimension of the intents' effects (the tenants' webhook rate limits: {@link TenantRateLimitCheck}). */
final class TenantCheck {

    private TenantCheck() {}

    /**
     * The tenant dimension: lost and duplicated per tenant; cross-tenant effects (an effect whose
     * tenant, as the local handler saw it or as the delivery's webhook-id carried it, is not its
     * intent's, or that reached an endpoint another tenant owns); and the idempotency keys that
     * several tenants used: each use must have made its own job, so each intent its own effect.
     */
    static void check(Statement s, ChaosResult r) throws SQLException {
        String tenantName = "coalesce(i.tenant, '" + ChaosTenants.DEFAULT_NAME + "')";
        r.put(
                "intentsByTenant",
                map(
                        s,
                        "SELECT " + tenantName
                                + ", count(*) FROM chaos_intent i WHERE committed GROUP BY 1 ORDER BY 1"));
        r.put(
                "intentsByTenantAndKind",
                map(
                        s,
                        "SELECT " + tenantName + " || ' ' || kind || CASE WHEN ordering_key IS NULL THEN '' ELSE"
                                + " '-ordered' END, count(*) FROM chaos_intent i WHERE committed AND (tenant IS NOT NULL"
                                + " OR kind IN ('" + Producer.LOCAL + "', '" + Producer.WEBHOOK + "', '"
                                + Producer.EVENT + "')) GROUP BY 1 ORDER BY 1"));
        r.put(
                "lostByTenant",
                map(
                        s,
                        "SELECT coalesce(m.tenant, '" + ChaosTenants.DEFAULT_NAME + "'), count(DISTINCT seq) FROM ("
                                + EffectCheck.missing() + ") m GROUP BY 1 ORDER BY 1"));
        r.put(
                "duplicateEffectsByTenant",
                map(
                        s,
                        "SELECT " + tenantName + ", sum(g.n - 1) FROM (SELECT target, tx, seq, count(*) AS n"
                                + " FROM chaos_effect GROUP BY 1, 2, 3) g JOIN chaos_intent i ON i.seq = g.seq"
                                + " AND i.tx = g.tx WHERE g.n > 1 GROUP BY 1 ORDER BY 1"));
        String cross = "SELECT e.id, e.target, e.tenant AS seen, i.tenant AS intended, i.seq, i.kind,"
                + " o.tenant AS owner FROM chaos_effect e JOIN chaos_intent i ON i.seq = e.seq AND i.tx = e.tx"
                + " LEFT JOIN " + ChaosTenants.ownersSql() + " ON o.endpoint = e.target"
                + " WHERE coalesce(e.tenant, '') <> coalesce(i.tenant, '')"
                + "   OR (e.target <> 'local' AND coalesce(o.tenant, '') <> coalesce(i.tenant, ''))";
        r.put("crossTenantEffects", one(s, "SELECT count(*) FROM (" + cross + ") x"));
        r.put("crossTenantEffectsLocal", one(s, "SELECT count(*) FROM (" + cross + ") x WHERE target = 'local'"));
        r.put("crossTenantEffectsReceiver", one(s, "SELECT count(*) FROM (" + cross + ") x WHERE target <> 'local'"));
        r.put(
                "crossTenantEffectsByTenant",
                map(
                        s,
                        "SELECT coalesce(intended, '" + ChaosTenants.DEFAULT_NAME + "'), count(*) FROM (" + cross
                                + ") x GROUP BY 1 ORDER BY 1"));
        r.put(
                "crossTenantEffectsSamples",
                texts(
                        s,
                        "SELECT 'effect ' || id || ': seq ' || seq || ' ' || kind || ' of ' || coalesce(intended, '"
                                + ChaosTenants.DEFAULT_NAME
                                + "'), 'applied at ' || target || coalesce(' (owner ' || owner"
                                + " || ')', '') || ' as ' || coalesce(seen, '" + ChaosTenants.DEFAULT_NAME + "')"
                                + " FROM (" + cross + ") x ORDER BY id LIMIT 8"));
        // Keys several tenants used, on the kinds whose key the engine takes as given (a webhook send's
        // key holds its endpoint, which is the tenant's own).
        String sharedKeys = "SELECT kind, idem_key FROM chaos_intent WHERE committed AND kind IN ('" + Producer.LOCAL
                + "', '" + Producer.EVENT + "') GROUP BY 1, 2 HAVING count(DISTINCT coalesce(tenant, '')) > 1";
        String sharedKeyIntents = "SELECT i.seq FROM chaos_intent i JOIN (" + sharedKeys
                + ") k ON k.kind = i.kind AND k.idem_key = i.idem_key WHERE i.committed";
        r.put("sharedKeys", one(s, "SELECT count(*) FROM (" + sharedKeys + ") k"));
        r.put("sharedKeyIntents", one(s, "SELECT count(*) FROM (" + sharedKeyIntents + ") i"));
        r.put(
                "sharedKeyIntentsLost",
                one(
                        s,
                        "SELECT count(DISTINCT m.seq) FROM (" + EffectCheck.missing() + ") m WHERE m.seq IN ("
                                + sharedKeyIntents + ")"));
    }
}
