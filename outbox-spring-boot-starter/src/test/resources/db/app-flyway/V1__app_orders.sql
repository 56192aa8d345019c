-- The application's own V1: Postbox's V1 must not clash with it.
CREATE TABLE app_order (id bigint PRIMARY KEY, sku text NOT NULL);
