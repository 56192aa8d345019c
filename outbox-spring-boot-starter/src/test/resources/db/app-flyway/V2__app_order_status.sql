ALTER TABLE app_order ADD COLUMN status text NOT NULL DEFAULT 'new';
