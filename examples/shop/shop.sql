-- SPDX-License-Identifier: Apache-2.0
-- The shop example's tables: customers (keyed by uuid), their orders (keyed
-- by a text code with characters a path escapes, 'SO/2026/000001') and each
-- order's lines. Idempotent. examples/shop/shop.toml declares the documents
-- restcache serves from them; docs/declarations.md walks through it.
--   psql -v ON_ERROR_STOP=1 -f examples/shop/shop.sql
--   psql -c 'SELECT shop_load(10000)'

CREATE TABLE IF NOT EXISTS shop_customer (
  id    uuid PRIMARY KEY,
  name  text NOT NULL,
  email text,
  since date
);

CREATE TABLE IF NOT EXISTS shop_order (
  code        text PRIMARY KEY,
  customer_id uuid REFERENCES shop_customer,
  placed      timestamptz NOT NULL,
  status      text NOT NULL,
  total       numeric(12,2),
  note        jsonb
);

-- A line names its order: moving it to another order changes both.
CREATE TABLE IF NOT EXISTS shop_line (
  order_code text NOT NULL REFERENCES shop_order ON DELETE CASCADE ON UPDATE CASCADE,
  line_no    int NOT NULL,
  sku        text NOT NULL,
  qty        int NOT NULL,
  price      numeric(10,2) NOT NULL,
  PRIMARY KEY (order_code, line_no)
);

-- The loader: `orders` orders (codes SO/2026/000001 on) of `orders / 4`
-- customers, one to five lines each, generated set-based and the same for
-- the same count. Returns the orders present afterwards.
CREATE OR REPLACE FUNCTION shop_load(orders int) RETURNS bigint LANGUAGE sql AS $fn$
  INSERT INTO shop_customer
  SELECT md5('customer ' || c)::uuid, 'Customer ' || c, 'customer' || c || '@example.com',
         date '2020-01-01' + (c % 1500)
    FROM generate_series(1, greatest(orders / 4, 1)) AS c
  ON CONFLICT DO NOTHING;
  INSERT INTO shop_order
  SELECT 'SO/2026/' || lpad(o::text, 6, '0'), md5('customer ' || (1 + o % greatest(orders / 4, 1)))::uuid,
         timestamptz '2026-01-01 00:00:00+00' + o * interval '7 minutes',
         (ARRAY['placed', 'paid', 'shipped', 'delivered'])[1 + o % 4], NULL,
         CASE WHEN o % 10 = 0 THEN jsonb_build_object('gift', true, 'message', 'Für dich') END
    FROM generate_series(1, orders) AS o
  ON CONFLICT DO NOTHING;
  INSERT INTO shop_line
  SELECT 'SO/2026/' || lpad(o::text, 6, '0'), l, 'SKU-' || ((o * 7 + l * 13) % 500), 1 + (o + l) % 3,
         ((o * 31 + l * 17) % 9000) / 100.0 + 1
    FROM generate_series(1, orders) AS o, generate_series(1, 1 + o % 5) AS l
  ON CONFLICT DO NOTHING;
  UPDATE shop_order o SET total = (SELECT sum(qty * price) FROM shop_line l WHERE l.order_code = o.code)
   WHERE total IS NULL;
  SELECT count(*) FROM shop_order;
$fn$;
