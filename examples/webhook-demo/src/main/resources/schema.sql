-- The demo application's own tables; Postbox's tables are created by the starter.
CREATE TABLE IF NOT EXISTS demo_order (
    id         bigserial   PRIMARY KEY,
    sku        text        NOT NULL,
    quantity   integer     NOT NULL CHECK (quantity > 0),
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS demo_stock (
    sku       text    PRIMARY KEY,
    available integer NOT NULL
);
INSERT INTO demo_stock (sku, available) VALUES ('book', 1000000), ('pen', 1000000), ('mug', 1000000)
    ON CONFLICT (sku) DO NOTHING;

-- One reservation per order: written by the transactional handler, exactly once.
CREATE TABLE IF NOT EXISTS demo_reservation (
    order_id bigint  PRIMARY KEY REFERENCES demo_order (id),
    sku      text    NOT NULL,
    quantity integer NOT NULL
);

-- The webhook receiver's effect: one row per webhook-id (= Idempotency-Key). WebhookInbox applies it once
-- (postbox_inbox); redeliveries are counted in received, and applied > 1 would be a duplicate effect.
CREATE TABLE IF NOT EXISTS demo_receiver_inbox (
    idempotency_key text        PRIMARY KEY,
    order_id        bigint      NOT NULL,
    received        integer     NOT NULL DEFAULT 1,
    applied         integer     NOT NULL DEFAULT 1,
    first_seen_at   timestamptz NOT NULL DEFAULT now()
);
