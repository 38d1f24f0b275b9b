-- SPDX-License-Identifier: Apache-2.0
-- restcache schema, version 14 (persistence/pg/schema.hpp: schema_version).
--
-- Idempotent: every statement is CREATE ... IF NOT EXISTS, CREATE OR REPLACE,
-- or DROP ... IF EXISTS followed by CREATE, so the daemon, restcache-load and
-- the tests apply this very text (compiled in, see schema_sql.cpp.in) on every
-- start. The whole file is one transaction and starts by taking a
-- transaction-scoped advisory lock, so concurrent appliers queue up instead of
-- colliding on catalog rows ("tuple concurrently updated", duplicate type
-- names); the lock is released at COMMIT or ROLLBACK.
-- It also works from psql: psql -v ON_ERROR_STOP=1 -f schema.sql

BEGIN;

-- CREATE ... IF NOT EXISTS answers "already exists, skipping" as a NOTICE on
-- every start after the first; keep those out of the client's log.
SET LOCAL client_min_messages = warning;

-- Any constant works; this one is 'restcach' in ASCII.
SELECT pg_advisory_xact_lock(7310593858020254568);

CREATE TABLE IF NOT EXISTS restcache_schema (
  version    int PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- The change log. Every committed change to a watched table appends ONE row
-- per changed row: the keys of the cached documents it affects, as
-- "<key space>:<key>" text ("emp:7839", "dept:10"; a key space is a lower-case
-- identifier, the key any text after the first colon). A TRUNCATE appends
-- "*:<schema>.<table>" (every document may have changed). Readers poll it by
-- snapshot (persistence/pg/change_feed.hpp); nothing is notified, so writers
-- neither queue behind one another at commit (NOTIFY takes a cluster-wide
-- lock from pre-commit to commit) nor are refused PREPARE TRANSACTION.
--
-- xid is the writing transaction (pg_current_xact_id() is the top-level one
-- in a subtransaction too): readers find entries by it, through its index,
-- the only one (each index is one more insert in every writer's
-- transaction). seq names an entry (read-your-writes matches a change by
-- it) and orders them for humans; changed_at is the transaction's start
-- (now(): no clock read per row), for the retention only.
DO $do$ BEGIN
  -- Version 6's log (entity, id; NOTIFY from every writer) goes with its
  -- triggers and functions. Its entries cannot be replayed by this version:
  -- the horizon rises past them, so every instance whose watermark is older
  -- drops its tiers instead of trusting a log that no longer reaches back.
  -- Listeners of version 6 are cut off: they reconnect, find no
  -- restcache_replay and stay bypassed (serving from PostgreSQL), and a
  -- version 6 build that starts fails on this log ("column entity does not
  -- exist") instead of installing its notifying triggers again.
  IF EXISTS (SELECT 1 FROM pg_attribute
             WHERE attrelid = to_regclass('change_log') AND attname = 'entity' AND NOT attisdropped) THEN
    IF to_regclass('dept') IS NOT NULL THEN
      DROP TRIGGER IF EXISTS restcache_dept_changed ON dept;
      DROP TRIGGER IF EXISTS restcache_dept_truncated ON dept;
    END IF;
    IF to_regclass('emp') IS NOT NULL THEN
      DROP TRIGGER IF EXISTS restcache_emp_changed ON emp;
      DROP TRIGGER IF EXISTS restcache_emp_truncated ON emp;
    END IF;
    DROP TABLE change_log, change_log_digest; -- with its own pruning trigger
    DROP FUNCTION IF EXISTS restcache_replay(xid8, bigint, int), restcache_usable_digest(xid8, int),
      restcache_dept_changed(), restcache_emp_changed(), restcache_truncated(),
      restcache_change_log_bound();
    IF to_regclass('change_log_horizon') IS NOT NULL THEN
      UPDATE change_log_horizon SET pruned_below = greatest(pruned_below, pg_current_xact_id());
    END IF;
    BEGIN
      PERFORM pg_terminate_backend(a.pid) FROM pg_stat_activity a
       WHERE a.application_name = 'restcache-listener' AND a.datname = current_database()
         AND a.pid <> pg_backend_pid();
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE WARNING 'restcache: could not cut off the listeners of an older version (%); '
                    'stop those instances: their change feed is gone', SQLERRM;
    END;
  END IF;
END $do$;

CREATE SEQUENCE IF NOT EXISTS change_log_seq NO CYCLE;

CREATE TABLE IF NOT EXISTS change_log (
  seq        bigint NOT NULL DEFAULT nextval('change_log_seq'),
  xid        xid8 NOT NULL DEFAULT pg_current_xact_id(),
  keys       text[] NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now()
);
ALTER SEQUENCE change_log_seq OWNED BY change_log.seq;

-- Polls and replays read the entries of given transactions, and of those
-- from a given one on; pruning goes oldest first.
CREATE INDEX IF NOT EXISTS change_log_xid_idx ON change_log (xid);

-- No primary key: should a publication FOR ALL TABLES take the log along,
-- its deletes (pruning) still replicate.
ALTER TABLE change_log REPLICA IDENTITY FULL;

-- Up to where the log may have lost entries: those of transactions with xid
-- <= pruned_below may be gone (pruned, reset by a bulk load that bypassed
-- the triggers, or of an older version's log). A reader whose watermark is
-- not above it cannot replay what it missed and drops its tiers instead.
CREATE TABLE IF NOT EXISTS change_log_horizon (
  one          bool PRIMARY KEY DEFAULT true CHECK (one),
  pruned_below xid8 NOT NULL DEFAULT '0'
);
INSERT INTO change_log_horizon DEFAULT VALUES ON CONFLICT DO NOTHING;

-- The age past which restcache_prune_change_log deletes entries whatever
-- any instance has applied (running instances call it at every prune, see
-- change_feed.cpp; operators may call it from cron when none runs).
-- UPDATE change_log_horizon SET max_age = '2 days' changes it.
ALTER TABLE change_log_horizon ADD COLUMN IF NOT EXISTS max_age interval NOT NULL DEFAULT '7 days';

-- Deletes up to `batch` entries older than max_age, oldest first, and raises
-- the horizon past them; returns how many went. It reads the oldest entry
-- and, only when that one has aged, the oldest `batch` (entries age in
-- transaction order, near enough for a bound). Never called by a writer.
CREATE OR REPLACE FUNCTION restcache_prune_change_log(batch int DEFAULT 20000)
RETURNS bigint LANGUAGE sql AS $fn$
  WITH h AS (SELECT max_age FROM change_log_horizon),
  oldest AS (SELECT c.xid, c.changed_at FROM change_log c
             WHERE (SELECT o.changed_at < now() - (SELECT max_age FROM change_log_horizon)
                    FROM change_log o ORDER BY o.xid LIMIT 1)
             ORDER BY c.xid LIMIT batch),
  cut AS (SELECT max(o.xid) AS x FROM oldest o, h WHERE o.changed_at < now() - h.max_age),
  d AS (DELETE FROM change_log c USING cut, h
        WHERE c.xid <= cut.x AND c.changed_at < now() - h.max_age
        RETURNING c.xid),
  m AS (SELECT max(xid) AS x, count(*) AS n FROM d),
  u AS (UPDATE change_log_horizon SET pruned_below = greatest(pruned_below, m.x)
        FROM m WHERE m.x IS NOT NULL)
  SELECT n FROM m
$fn$;

-- Shared replay digests. Instances cut off together (a database restart, a
-- network cut) reconnect together and each replays the log from its own
-- watermark: after a large batch of writes, N instances would read the same
-- entries N times. A replay of at least digest_from entries looks for a
-- digest another one left: the distinct keys of every entry with
-- from_xid <= xid < upto_xid, upto_xid being the xmin of the snapshot that
-- read them (every transaction below it had ended, so none can add an entry
-- there later). Without one, it makes one under an advisory lock while the
-- others wait for it (in shared mode, then read it side by side). The keys
-- are kept as one text, separated by U+001F (no key holds a control
-- character), as readers are sent it: an array of 100,000 keys takes
-- PostgreSQL ~75 ms to print, for every reader. Kept 10 minutes; never
-- needed for correctness (a reader without a usable digest reads the log).
CREATE TABLE IF NOT EXISTS change_log_digest (
  digest_no  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  from_xid   xid8 NOT NULL,
  upto_xid   xid8 NOT NULL,
  made_at    timestamptz NOT NULL DEFAULT now(),
  max_seq    bigint NOT NULL,
  entries    bigint NOT NULL,
  truncated  bool NOT NULL,
  key_count  int NOT NULL,
  keys       text NOT NULL
);

-- The newest digest a reader at `watermark` can use (its digest_no, or
-- NULL): what it does not cover (below its from_xid, from its upto_xid on)
-- is fewer than `few` entries.
CREATE OR REPLACE FUNCTION restcache_digest_for(watermark xid8, few int)
RETURNS bigint
LANGUAGE plpgsql SET enable_seqscan = off SET jit = off AS $fn$
DECLARE
  g record;
BEGIN
  SELECT x.digest_no, x.from_xid, x.upto_xid INTO g FROM change_log_digest x
   WHERE x.upto_xid > watermark AND x.made_at > now() - interval '10 minutes'
   ORDER BY x.upto_xid DESC LIMIT 1;
  IF NOT FOUND OR (SELECT count(*) FROM (SELECT 1 FROM change_log c
                     WHERE (c.xid >= watermark AND c.xid < g.from_xid) OR c.xid >= g.upto_xid
                     LIMIT few) s) >= few THEN
    RETURN NULL;
  END IF;
  RETURN g.digest_no;
END
$fn$;

-- The keys a reader at `watermark` must replay (key, seq, us; at most
-- max_entries rows, in no order), read directly or through a digest. A
-- digest's keys come as one row with every key in `keys` (key NULL), its
-- highest sequence and no change time; a truncate as the key '*:digest'.
-- Callers count keys against max_entries themselves, and read
-- change_log_horizon after this (a prune that ran meanwhile shows there).
--
-- The planner has no statistics for a range of xid8 (it assumes a third of
-- the table matches) and would read the whole log for "xid >= watermark":
-- seqscan is off inside, so every read of the log goes through
-- change_log_xid_idx. JIT is off too: the tiny digest table is still read by
-- a sequential scan, whose cost "off" inflates past jit_above_cost, and
-- compiling it took ~70 ms in every new session.
CREATE OR REPLACE FUNCTION restcache_replay_keys(watermark xid8, max_entries bigint, digest_from int DEFAULT 10000)
RETURNS TABLE (key text, seq bigint, us bigint, keys text)
LANGUAGE plpgsql SET enable_seqscan = off SET jit = off AS $fn$
#variable_conflict use_column
DECLARE
  n bigint;
  g record;
BEGIN
  IF (SELECT count(*) FROM (SELECT 1 FROM change_log c WHERE c.xid >= watermark LIMIT digest_from) s) >= digest_from THEN
    n := restcache_digest_for(watermark, digest_from);
    IF n IS NULL THEN
      -- 'restcach' + 1. The first makes the digest; the others wait in
      -- shared mode and then read it together (or, when it does not suit
      -- them, the log: a shared holder may not make one).
      IF pg_try_advisory_xact_lock(7310593858020254569) THEN
        n := restcache_digest_for(watermark, digest_from);
        IF n IS NULL THEN
          DELETE FROM change_log_digest x WHERE x.made_at <= now() - interval '10 minutes';
          INSERT INTO change_log_digest (from_xid, upto_xid, max_seq, entries, truncated, key_count, keys)
            SELECT watermark, pg_snapshot_xmin(pg_current_snapshot()), coalesce(max(d.seq), 0),
                   coalesce(sum(d.n), 0), coalesce(bool_or(d.k LIKE '*:%'), false),
                   count(*) FILTER (WHERE d.k NOT LIKE '*:%'),
                   coalesce(string_agg(d.k, chr(31)) FILTER (WHERE d.k NOT LIKE '*:%'), '')
            FROM (SELECT u.k, max(c.seq) AS seq, count(*) AS n
                  FROM change_log c, unnest(c.keys) AS u (k) WHERE c.xid >= watermark GROUP BY u.k) d
            RETURNING digest_no INTO n;
        END IF;
      ELSE
        PERFORM pg_advisory_xact_lock_shared(7310593858020254569);
        n := restcache_digest_for(watermark, digest_from);
      END IF;
    END IF;
  END IF;
  IF n IS NULL THEN
    RETURN QUERY
      SELECT u.k, c.seq, (extract(epoch FROM c.changed_at) * 1000000)::bigint, NULL::text
      FROM change_log c, unnest(c.keys) AS u (k) WHERE c.xid >= watermark LIMIT max_entries;
    RETURN;
  END IF;
  SELECT x.from_xid, x.upto_xid, x.max_seq, x.truncated INTO g FROM change_log_digest x WHERE x.digest_no = n;
  RETURN QUERY
    SELECT NULL::text, g.max_seq, 0::bigint, x.keys
    FROM change_log_digest x WHERE x.digest_no = n AND x.key_count > 0
    UNION ALL
    SELECT '*:digest'::text, g.max_seq, 0::bigint, NULL::text WHERE g.truncated
    UNION ALL
    (SELECT u.k, c.seq, (extract(epoch FROM c.changed_at) * 1000000)::bigint, NULL::text
     FROM change_log c, unnest(c.keys) AS u (k)
     WHERE (c.xid >= watermark AND c.xid < g.from_xid) OR c.xid >= g.upto_xid
     LIMIT max_entries);
END
$fn$;

-- Which change feed this database's instances follow (one row; none: the
-- triggers, as before version 12), as `restcache-load --feed` chose it:
--   triggers: the generated row triggers append to change_log, polled;
--   wal:      each instance streams a logical replication slot (its own, or
--             the relay's) through pgoutput on the publication "restcache" of
--             the watched tables, and nothing runs inside the writers'
--             transactions.
-- restcache_install_triggers installs what the feed needs and removes what
-- the other one left; on a switch to the WAL, restcache-load calls
-- restcache_publish_watched first and restcache_retire_triggers once the
-- instances reading the log have moved.
CREATE TABLE IF NOT EXISTS restcache_feed (
  one       boolean PRIMARY KEY DEFAULT true CHECK (one),
  feed      text NOT NULL CHECK (feed IN ('triggers', 'wal')),
  chosen_at timestamptz NOT NULL DEFAULT now()
);

CREATE OR REPLACE FUNCTION restcache_feed()
RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT coalesce((SELECT f.feed FROM restcache_feed f), 'triggers')
$fn$;

-- What a switch of feed leaves for the instances carrying their tiers across
-- it (version 13; persistence/pg/feed_switch.hpp):
--   triggers_removed: the transaction that last removed the row triggers. An
--     instance whose tiers stand at a trigger-log position P carries them
--     onto a slot made with the exported snapshot S when no removal lies
--     between (restcache_triggers_logged): the log holds every change
--     committed after P and visible in S, the slot every one after S.
--   triggers_from, triggers_from_lsn: the snapshot and WAL insert position
--     the transaction installing the triggers took once it held every
--     watched table. Whatever committed visibly to that snapshot wrote its
--     watched rows below that position (the triggers' DDL waited for it);
--     whatever did not is logged. An instance on the WAL streams up to the
--     position and then polls the log from the snapshot.
ALTER TABLE restcache_feed ADD COLUMN IF NOT EXISTS triggers_removed xid8;
ALTER TABLE restcache_feed ADD COLUMN IF NOT EXISTS triggers_from pg_snapshot;
ALTER TABLE restcache_feed ADD COLUMN IF NOT EXISTS triggers_from_lsn pg_lsn;

CREATE OR REPLACE FUNCTION restcache_triggers_logged(p pg_snapshot, s pg_snapshot)
RETURNS boolean LANGUAGE sql STABLE AS $fn$
  SELECT coalesce((SELECT f.triggers_removed IS NULL OR pg_visible_in_snapshot(f.triggers_removed, p)
                          OR NOT pg_visible_in_snapshot(f.triggers_removed, s)
                     FROM restcache_feed f), true)
$fn$;

-- The WAL feed's relay (changelog.wal-relay; persistence/pg/wal_relay.hpp):
-- the instance holding advisory lock 7310593858020254570 streams the slot
-- restcache_<system id>_relay and writes each window of commits it decoded
-- as one row, in commit order; the instances following the relay read the
-- rows after their position instead of streaming a slot each. Written by
-- that instance only, never by a writer.
CREATE TABLE IF NOT EXISTS wal_relay (
  end_lsn    pg_lsn PRIMARY KEY,  -- past the window's last commit
  first_lsn  pg_lsn NOT NULL,     -- past its first
  commits    text NOT NULL,       -- their keys, rows and drops, encoded
  relayed_at timestamptz NOT NULL DEFAULT now()
);

-- Who leads, for which declarations (a follower serving others streams a
-- slot of its own), and below which LSN windows may be gone (pruned, or
-- never relayed: a slot made anew after a failover): a follower whose
-- position is below it drops its tiers.
CREATE TABLE IF NOT EXISTS wal_relay_head (
  one          boolean PRIMARY KEY DEFAULT true CHECK (one),
  fingerprint  text NOT NULL,
  leader       text NOT NULL,
  led_since    timestamptz NOT NULL DEFAULT now(),
  pruned_below pg_lsn NOT NULL DEFAULT '0/0'
);
-- Where the relay last started again, and the snapshot its new slot
-- exported (NULL when the slot was not made anew): an instance whose tiers
-- the triggers kept follows the relay from start_lsn, keeping them, while
-- nothing since was pruned (version 13).
ALTER TABLE wal_relay_head ADD COLUMN IF NOT EXISTS start_lsn pg_lsn;
ALTER TABLE wal_relay_head ADD COLUMN IF NOT EXISTS start_snapshot pg_snapshot;

-- The replica identity restcache-load found on a table before it changed it
-- for the WAL feed (the old key columns of an UPDATE or DELETE must be in the
-- WAL): `restcache-load --uninstall` puts it back. original is
-- pg_class.relreplident (d, n, f, i), original_index the index's name for i.
CREATE TABLE IF NOT EXISTS restcache_replica_identity (
  table_schema   text NOT NULL,
  table_name     text NOT NULL,
  original       "char" NOT NULL,
  original_index text,
  PRIMARY KEY (table_schema, table_name)
);

-- Logs keys the way the feed carries them: a change-log row for the
-- triggers' feed, a transactional logical message (prefix "restcache", the
-- keys joined by U+001F) for the WAL's, which arrives in commit order with
-- the rows. The DDL event trigger logs through it.
CREATE OR REPLACE FUNCTION restcache_log_keys(keys text[])
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF restcache_feed() = 'wal' THEN
    PERFORM pg_logical_emit_message(true, 'restcache', array_to_string(keys, chr(31)));
  ELSE
    EXECUTE format('INSERT INTO %s (keys) VALUES ($1)', restcache_log_table()) USING keys;
  END IF;
END
$fn$;

-- Whether a table's replica identity, and that of each of its partitions
-- and inheriting tables, names its old rows: with none (NOTHING, DEFAULT
-- without a primary key, an identity index dropped) PostgreSQL refuses every
-- UPDATE and DELETE of a published table.
CREATE OR REPLACE FUNCTION restcache_identity_usable(rel regclass)
RETURNS bool LANGUAGE sql STABLE AS $fn$
  WITH RECURSIVE tree(relid, depth) AS (
    SELECT rel::oid, 0
    UNION ALL
    SELECT i.inhrelid, t.depth + 1 FROM tree t JOIN pg_catalog.pg_inherits i ON i.inhparent = t.relid
     WHERE t.depth < 32)
  SELECT coalesce(bool_and(c.relkind = 'p' OR c.relreplident = 'f'
                           OR (c.relreplident = 'd' AND EXISTS (SELECT 1 FROM pg_catalog.pg_index x
                                                                 WHERE x.indrelid = c.oid AND x.indisprimary))
                           OR (c.relreplident = 'i' AND EXISTS (SELECT 1 FROM pg_catalog.pg_index x
                                                                 WHERE x.indrelid = c.oid AND x.indisreplident))),
                  true)
    FROM tree t JOIN pg_catalog.pg_class c ON c.oid = t.relid
$fn$;

-- The watched tables leave the WAL feed's publication when their identity
-- no longer names old rows (someone dropped a primary key): in the DDL's
-- own transaction, from the event trigger, so that no write is refused for
-- restcache. The drift check then bypasses their kinds (not published)
-- until `restcache-load --schema-only` gives them an identity again.
-- Returns how many left.
CREATE OR REPLACE FUNCTION restcache_unpublish_unusable()
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
  t record;
  n int := 0;
BEGIN
  FOR t IN SELECT r.prrelid::regclass AS rel FROM pg_catalog.pg_publication p
             JOIN pg_catalog.pg_publication_rel r ON r.prpubid = p.oid
            WHERE p.pubname = 'restcache' LOOP
    CONTINUE WHEN restcache_identity_usable(t.rel);
    RAISE WARNING 'restcache: % no longer has a replica identity that names its old rows: it leaves the '
                  'publication restcache (its documents are answered uncached until restcache-load '
                  '--schema-only repairs it), so that its updates and deletes are not refused', t.rel;
    EXECUTE format('ALTER PUBLICATION restcache DROP TABLE %s', t.rel);
    n := n + 1;
  END LOOP;
  RETURN n;
END
$fn$;

-- The publication of the WAL feed: exactly the watched tables that exist,
-- each change under the name of the table it was made in
-- (publish_via_partition_root off: with it on, pgoutput drops a TRUNCATE of
-- a single partition). Changed only when the list differs, so instances
-- streaming it see nothing. Needs the right to create a publication and the
-- tables' ownership (restcache-load --plan says so).
CREATE OR REPLACE FUNCTION restcache_publish_watched()
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
  wanted text;
  have text;
BEGIN
  -- One whose identity names no old rows is left out (its writes would be
  -- refused): restcache-load sets the identities first.
  -- Both lists sorted by name (an aggregate's ORDER BY 1 sorts by a
  -- constant), so that the same set compares equal and is left alone.
  SELECT string_agg(format('%I.%I', w.table_schema, w.table_name), ', '
                    ORDER BY format('%I.%I', w.table_schema, w.table_name))
    INTO wanted
    FROM (SELECT DISTINCT table_schema, table_name FROM restcache_watched_key) w
   WHERE to_regclass(format('%I.%I', w.table_schema, w.table_name)) IS NOT NULL
     AND restcache_identity_usable(format('%I.%I', w.table_schema, w.table_name)::regclass);
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'restcache') THEN
    EXECUTE 'CREATE PUBLICATION restcache WITH (publish = ''insert, update, delete, truncate'','
            ' publish_via_partition_root = false)';
  END IF;
  -- A table published with its inheriting tables has a row for each: they
  -- are not in the list, as SET TABLE adds them again itself.
  SELECT string_agg(format('%I.%I', n.nspname, c.relname), ', ' ORDER BY format('%I.%I', n.nspname, c.relname))
    INTO have
    FROM pg_publication p JOIN pg_publication_rel r ON r.prpubid = p.oid
    JOIN pg_class c ON c.oid = r.prrelid JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE p.pubname = 'restcache'
     AND NOT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_publication_rel pr ON pr.prrelid = i.inhparent
                      WHERE i.inhrelid = c.oid AND pr.prpubid = p.oid);
  IF wanted IS NOT DISTINCT FROM have THEN
    RETURN 0;
  END IF;
  IF wanted IS NULL THEN
    EXECUTE 'DROP PUBLICATION restcache';
    EXECUTE 'CREATE PUBLICATION restcache WITH (publish = ''insert, update, delete, truncate'','
            ' publish_via_partition_root = false)';
  ELSE
    EXECUTE 'ALTER PUBLICATION restcache SET TABLE ' || wanted;
  END IF;
  RETURN 1;
END
$fn$;

-- What is watched: which column of which table gives the key of which key
-- space. The triggers are generated from these rows
-- (restcache_install_triggers); the rows come from the kinds' reads
-- (watch_catalogue_keys), e.g. the demo's:
--   dept.deptno -> dept (the department documents),
--   emp.empno -> emp (the employee document),
--   emp.deptno -> dept (the department an employee was or is in).
CREATE TABLE IF NOT EXISTS restcache_watched_key (
  table_schema text NOT NULL,
  table_name   text NOT NULL,
  key_space    text NOT NULL CHECK (key_space ~ '^[a-z_][a-z0-9_]*$'),
  key_column   text NOT NULL,
  PRIMARY KEY (table_schema, table_name, key_space, key_column)
);
-- The key column's number when it was watched: a column renamed since keeps
-- it, so a declaration still naming the old name is told the new one
-- (persistence/pg/kind_check.cpp). NULL for a column already gone when this
-- was added (version 10).
ALTER TABLE restcache_watched_key ADD COLUMN IF NOT EXISTS key_attnum int2;
UPDATE restcache_watched_key w SET key_attnum = a.attnum
  FROM pg_attribute a
 WHERE w.key_attnum IS NULL AND a.attrelid = to_regclass(format('%I.%I', w.table_schema, w.table_name))
   AND a.attname = w.key_column AND a.attnum > 0 AND NOT a.attisdropped;

-- The name of the trigger function generated for a watched table: readable,
-- and unique however long the names (identifiers end at 63 bytes).
CREATE OR REPLACE FUNCTION restcache_trigger_function(table_schema text, table_name text)
RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
  SELECT 'restcache_changed_' || left(table_name, 36) || '_'
         || left(md5(quote_ident(table_schema) || '.' || quote_ident(table_name)), 8)
$fn$;

-- Where the change log is, schema-qualified and quoted: the generated
-- functions name it so, whatever the writer's search_path.
CREATE OR REPLACE FUNCTION restcache_log_table()
RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT quote_ident(s.nspname) || '.change_log'
    FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE c.oid = to_regclass('change_log')
$fn$;

-- The body of the TRUNCATE trigger function: what restcache_install_triggers
-- installs as restcache_truncated() next to the log, and what an instance's
-- drift check compares the installed function's source with.
CREATE OR REPLACE FUNCTION restcache_truncated_source()
RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT format($body$
    BEGIN
      INSERT INTO %s (keys) VALUES (ARRAY['*:' || quote_ident(TG_TABLE_SCHEMA) || '.' || quote_ident(TG_TABLE_NAME)]);
      RETURN NULL;
    END $body$, restcache_log_table())
$fn$;

-- Whether DDL on the watched tables is followed as it happens: both event
-- triggers installed (a superuser applied the schema) and enabled. Then a key
-- column renamed or dropped has its table's trigger function generated again
-- in the DDL's own transaction (restcache_ddl_logged), so the generated
-- functions may read their columns unguarded. Without them, each generated
-- function guards its reads (restcache_trigger_source).
CREATE OR REPLACE FUNCTION restcache_ddl_followed()
RETURNS bool LANGUAGE sql STABLE AS $fn$
  SELECT count(*) = 2 FROM pg_catalog.pg_event_trigger
   WHERE evtname IN ('restcache_ddl_end', 'restcache_ddl_drop') AND evtenabled = 'A'
$fn$;

-- The body of the row trigger function of one watched table, generated from
-- its restcache_watched_key rows and its columns as they are now (NULL when
-- it has no watched key): one log row per changed row, with the key of every
-- key space its columns give, old and new. The install writes it; the drift
-- check compares it with what is installed, so a function edited by hand, or
-- one left behind by a change of the watched keys or of the columns, is seen.
--
-- A write never fails because of it. A watched key column that is gone
-- (renamed or dropped) is not read: the function logs "*:<schema>.<table>"
-- instead (every document of the table's key spaces) until a repair names
-- its new column. A key column whose type has no default btree equality
-- (json, point) is compared as text. Where DDL is not followed as it happens
-- (no event triggers: a non-superuser install), a column may go between two
-- generations, so the reads are guarded: a failure logs the table-wide key
-- instead. The guard is a plpgsql exception block (a subtransaction without
-- an xid on every row: about 2 µs of CPU, bench/trigger_guard), which installs with the event
-- triggers do without.
CREATE OR REPLACE FUNCTION restcache_trigger_source(watched_schema text, watched_table text)
RETURNS text LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  w record;
  everything text := '*:' || quote_ident(watched_schema) || '.' || quote_ident(watched_table);
  watched bool := false;
  gone bool := false;
  ins text := '';
  del text := '';
  upd text := '';
  keys text;
BEGIN
  FOR w IN
    SELECT k.key_space, k.key_column, a.attnum IS NOT NULL AS present,
           NOT EXISTS (SELECT 1 FROM pg_catalog.pg_opclass oc
                         JOIN pg_catalog.pg_am am ON am.oid = oc.opcmethod AND am.amname = 'btree'
                         JOIN pg_catalog.pg_type ty ON ty.oid = a.atttypid
                        WHERE oc.opcdefault
                          AND (oc.opcintype IN (ty.oid, ty.typbasetype)
                               OR (ty.typtype = 'e' AND oc.opcintype = 'anyenum'::regtype)
                               OR (ty.typcategory = 'A' AND oc.opcintype = 'anyarray'::regtype))) AS by_text
      FROM restcache_watched_key k
      LEFT JOIN pg_catalog.pg_attribute a
        ON a.attrelid = to_regclass(format('%I.%I', watched_schema, watched_table))
       AND a.attname = k.key_column AND a.attnum > 0 AND NOT a.attisdropped
     WHERE k.table_schema = watched_schema AND k.table_name = watched_table
     ORDER BY k.key_space, k.key_column
  LOOP
    watched := true;
    IF NOT w.present THEN
      gone := true;
      CONTINUE;
    END IF;
    ins := ins || format(', %L || NEW.%I::text', w.key_space || ':', w.key_column);
    del := del || format(', %L || OLD.%I::text', w.key_space || ':', w.key_column);
    upd := upd || format(CASE WHEN w.by_text
                              THEN ', %1$L || CASE WHEN NEW.%2$I::text IS DISTINCT FROM OLD.%2$I::text THEN NEW.%2$I::text END'
                              ELSE ', %1$L || CASE WHEN NEW.%2$I IS DISTINCT FROM OLD.%2$I THEN NEW.%2$I::text END' END,
                         w.key_space || ':', w.key_column);
  END LOOP;
  IF NOT watched THEN
    RETURN NULL;
  END IF;
  IF gone THEN
    ins := ins || format(', %L', everything);
    del := del || format(', %L', everything);
  END IF;
  keys := format($k$
        IF TG_OP = 'INSERT' THEN
          k := ARRAY[%s];
        ELSIF TG_OP = 'DELETE' THEN
          k := ARRAY[%s];
        ELSE
          k := ARRAY[%s%s];
        END IF;$k$, substr(ins, 3), substr(del, 3), substr(del, 3), upd);
  IF NOT restcache_ddl_followed() THEN
    keys := format($k$
        BEGIN%s
        EXCEPTION WHEN OTHERS THEN
          k := ARRAY[%L];
        END;$k$, replace(keys, E'\n', E'\n  '), everything);
  END IF;
  RETURN format($body$
      DECLARE
        k text[];
      BEGIN%s
        k := array_remove(k, NULL);
        IF cardinality(k) > 0 THEN
          INSERT INTO %s (keys) VALUES (k);
        END IF;
        RETURN NULL;
      END $body$, keys, restcache_log_table());
END
$fn$;

-- Creates or replaces a generated trigger function unless it is already
-- exactly as generated (so a repair leaves a correct one alone and its
-- catalog row unchanged: instances watch that row for drift).
-- Whether the function `fn` is exactly as restcache generates it with `body`:
-- the install's rule for leaving it alone and the drift check's for trusting it.
CREATE OR REPLACE FUNCTION restcache_function_as_generated(fn oid, body text)
RETURNS bool LANGUAGE sql STABLE AS $fn$
  SELECT EXISTS (SELECT 1 FROM pg_proc p WHERE p.oid = fn AND p.prosrc = body
                   AND p.prosecdef AND p.proconfig = ARRAY['search_path=pg_catalog, pg_temp'])
$fn$;

CREATE OR REPLACE FUNCTION restcache_define_function(fn text, body text)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF restcache_function_as_generated(to_regprocedure(fn || '()'), body) THEN
    RETURN;
  END IF;
  EXECUTE format('CREATE OR REPLACE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql'
                 ' SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS %L', fn, body);
END
$fn$;

-- Generates again every watched table's row trigger function that is not as
-- restcache_trigger_source would write it now, and nothing else (no trigger,
-- no lock on a table): what the event triggers run after DDL on a watched
-- table, and the schema after installing them. Returns how many it wrote.
CREATE OR REPLACE FUNCTION restcache_define_trigger_functions()
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
  log_schema text := regexp_replace(restcache_log_table(), '\.change_log$', '');
  t record;
  fn text;
  body text;
  n int := 0;
BEGIN
  FOR t IN SELECT DISTINCT w.table_schema, w.table_name FROM restcache_watched_key w ORDER BY 1, 2 LOOP
    CONTINUE WHEN to_regclass(format('%I.%I', t.table_schema, t.table_name)) IS NULL;
    fn := log_schema || '.' || quote_ident(restcache_trigger_function(t.table_schema, t.table_name));
    body := restcache_trigger_source(t.table_schema, t.table_name);
    CONTINUE WHEN restcache_function_as_generated(to_regprocedure(fn || '()'), body);
    PERFORM restcache_define_function(fn, body);
    n := n + 1;
  END LOOP;
  RETURN n;
END
$fn$;

-- The tables whose rows a read of `rel` also reads: its partitions and the
-- tables inheriting from it, at every level, with whether each is a
-- partition (its row trigger is PostgreSQL's clone of the parent's).
CREATE OR REPLACE FUNCTION restcache_descendants(rel regclass)
RETURNS TABLE (relid regclass, is_partition bool) LANGUAGE sql STABLE AS $fn$
  WITH RECURSIVE tree(relid, depth) AS (
    SELECT i.inhrelid, 1 FROM pg_catalog.pg_inherits i WHERE i.inhparent = rel
    UNION ALL
    SELECT i.inhrelid, t.depth + 1 FROM tree t JOIN pg_catalog.pg_inherits i ON i.inhparent = t.relid
     WHERE t.depth < 32)
  SELECT DISTINCT t.relid::regclass, c.relispartition FROM tree t JOIN pg_catalog.pg_class c ON c.oid = t.relid
$fn$;

-- What the partitions and inheriting tables of the watched tables need, as
-- their rows are read through the watched table: a partition has the clone
-- of its parent's row trigger (PostgreSQL makes it; enabled ALWAYS here when
-- it is not, unless `only_missing`); an inheriting table gets a row trigger
-- calling the watched table's function (its columns are the parent's, by
-- name); each gets its own TRUNCATE trigger (PostgreSQL clones no statement
-- trigger, and a partition truncated alone fires only its own). `only_missing`
-- (the event trigger, after a partition or an inheriting table was created or
-- attached) creates what is missing and leaves a trigger an administrator
-- disabled as it is: that is drift, for the repair. Returns how many it
-- created or repaired. While it runs, restcache.adding_triggers is on: the
-- event trigger its own DDL fires does not run it again.
CREATE OR REPLACE FUNCTION restcache_descendant_triggers(only_missing bool)
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
  log_schema text := regexp_replace(restcache_log_table(), '\.change_log$', '');
  t record;
  d record;
  fn text;
  n int := 0;
BEGIN
  IF restcache_feed() = 'wal' THEN
    RETURN 0; -- a descendant's changes are published with its root's
  END IF;
  PERFORM set_config('restcache.adding_triggers', 'on', true);
  FOR t IN SELECT DISTINCT w.table_schema, w.table_name FROM restcache_watched_key w ORDER BY 1, 2 LOOP
    CONTINUE WHEN to_regclass(format('%I.%I', t.table_schema, t.table_name)) IS NULL;
    fn := log_schema || '.' || quote_ident(restcache_trigger_function(t.table_schema, t.table_name));
    CONTINUE WHEN to_regprocedure(fn || '()') IS NULL;
    FOR d IN SELECT * FROM restcache_descendants(format('%I.%I', t.table_schema, t.table_name)::regclass) LOOP
      -- One watched itself has its own triggers (the drift check says that
      -- its changes then log its keys, not the table's).
      CONTINUE WHEN EXISTS (SELECT 1 FROM restcache_watched_key k JOIN pg_class c ON c.relname = k.table_name
                              JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = k.table_schema
                             WHERE c.oid = d.relid);
      IF d.is_partition THEN
        IF NOT only_missing AND EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = d.relid
                                          AND g.tgname = 'restcache_changed' AND g.tgenabled <> 'A') THEN
          EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER restcache_changed', d.relid);
          n := n + 1;
        END IF;
      ELSIF NOT EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = d.relid AND g.tgname = 'restcache_changed'
                          AND (only_missing OR (g.tgfoid = (fn || '()')::regprocedure AND g.tgenabled = 'A'
                                                AND g.tgtype = 29 AND g.tgqual IS NULL
                                                AND g.tgattr = ''::int2vector))) THEN
        EXECUTE format('DROP TRIGGER IF EXISTS restcache_changed ON %s', d.relid);
        EXECUTE format('CREATE TRIGGER restcache_changed AFTER INSERT OR UPDATE OR DELETE ON %s'
                       ' FOR EACH ROW EXECUTE FUNCTION %s()', d.relid, fn);
        EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER restcache_changed', d.relid);
        n := n + 1;
      END IF;
      IF NOT EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = d.relid AND g.tgname = 'restcache_truncated'
                       AND (only_missing OR (g.tgfoid = (log_schema || '.restcache_truncated()')::regprocedure
                                             AND g.tgenabled = 'A' AND g.tgtype = 32 AND g.tgqual IS NULL))) THEN
        EXECUTE format('DROP TRIGGER IF EXISTS restcache_truncated ON %s', d.relid);
        EXECUTE format('CREATE TRIGGER restcache_truncated AFTER TRUNCATE ON %s'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION %s.restcache_truncated()', d.relid, log_schema);
        EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER restcache_truncated', d.relid);
        n := n + 1;
      END IF;
    END LOOP;
  END LOOP;
  PERFORM set_config('restcache.adding_triggers', 'off', true);
  RETURN n;
END
$fn$;

-- (Re)creates what the watched tables need and returns how many triggers it
-- repaired: per table a row trigger function appending its keys, the row
-- trigger restcache_changed and the statement trigger restcache_truncated,
-- both enabled ALWAYS (they fire under session_replication_role = replica,
-- which is how logical replication applies a subscriber's changes and how
-- pg_restore --disable-triggers writes). A trigger or function already as
-- it should be is left alone: no lock is taken on a table that needs
-- nothing, and running instances see no change.
--
-- The functions name the log schema-qualified, pin their search_path and run
-- as their owner (SECURITY DEFINER): writers under any search_path (an empty
-- one, as pg_dump's scripts and logical replication's apply workers use),
-- and roles granted only DML on the watched tables, write as they would
-- without restcache. Each appends one row per changed row and nothing else.
CREATE OR REPLACE FUNCTION restcache_install_triggers()
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
  log_schema text;
  truncated_fn text;
  t record;
  rel text;
  fn text;
  n int := 0;
BEGIN
  -- Where the log is: the generated functions live next to it.
  log_schema := regexp_replace(restcache_log_table(), '\.change_log$', '');
  truncated_fn := log_schema || '.restcache_truncated';
  PERFORM restcache_define_function(truncated_fn, restcache_truncated_source());
  IF restcache_feed() = 'wal' THEN
    -- Nothing in the writers' transactions: the triggers go (the generated
    -- functions stay, unused), the publication names the tables.
    PERFORM restcache_remove_row_triggers();
    RETURN restcache_publish_watched();
  END IF;
  -- The publication stays while a restcache slot streams it: after a switch
  -- to the triggers each instance streams its slot up to where the log
  -- takes over (restcache_feed.triggers_from_lsn), and a walsender whose
  -- publication is gone ends with an error. A later install drops it.
  IF EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'restcache')
     AND NOT EXISTS (SELECT 1 FROM pg_replication_slots s
                      WHERE s.database = current_database() AND s.slot_name LIKE 'restcache\_%') THEN
    EXECUTE 'DROP PUBLICATION restcache';
  END IF;
  FOR t IN SELECT DISTINCT w.table_schema, w.table_name FROM restcache_watched_key w ORDER BY 1, 2 LOOP
    rel := format('%I.%I', t.table_schema, t.table_name);
    IF to_regclass(rel) IS NULL THEN
      RAISE WARNING 'restcache: the watched table % does not exist', rel;
      CONTINUE;
    END IF;
    fn := log_schema || '.' || quote_ident(restcache_trigger_function(t.table_schema, t.table_name));
    PERFORM restcache_define_function(fn, restcache_trigger_source(t.table_schema, t.table_name));
    -- tgtype 29: FOR EACH ROW (1), AFTER, INSERT (4), DELETE (8), UPDATE (16).
    IF NOT EXISTS (SELECT 1 FROM pg_trigger g
                   WHERE g.tgrelid = rel::regclass AND g.tgname = 'restcache_changed'
                     AND g.tgfoid = (fn || '()')::regprocedure AND g.tgenabled = 'A' AND g.tgtype = 29
                     AND g.tgqual IS NULL AND g.tgattr = ''::int2vector) THEN
      EXECUTE format('DROP TRIGGER IF EXISTS restcache_changed ON %s', rel);
      EXECUTE format('CREATE TRIGGER restcache_changed AFTER INSERT OR UPDATE OR DELETE ON %s'
                     ' FOR EACH ROW EXECUTE FUNCTION %s()', rel, fn);
      EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER restcache_changed', rel);
      n := n + 1;
    END IF;
    -- tgtype 32: FOR EACH STATEMENT, AFTER, TRUNCATE.
    IF NOT EXISTS (SELECT 1 FROM pg_trigger g
                   WHERE g.tgrelid = rel::regclass AND g.tgname = 'restcache_truncated'
                     AND g.tgfoid = (truncated_fn || '()')::regprocedure
                     AND g.tgenabled = 'A' AND g.tgtype = 32 AND g.tgqual IS NULL) THEN
      EXECUTE format('DROP TRIGGER IF EXISTS restcache_truncated ON %s', rel);
      EXECUTE format('CREATE TRIGGER restcache_truncated AFTER TRUNCATE ON %s'
                     ' FOR EACH STATEMENT EXECUTE FUNCTION %s()', rel, truncated_fn);
      EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER restcache_truncated', rel);
      n := n + 1;
    END IF;
  END LOOP;
  RETURN n + restcache_descendant_triggers(false);
END
$fn$;

-- The watched tables' triggers (and their descendants'), leaving the
-- generated functions: the WAL feed needs none of them.
CREATE OR REPLACE FUNCTION restcache_remove_row_triggers()
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  t record;
  d record;
  rel text;
BEGIN
  PERFORM set_config('restcache.adding_triggers', 'on', true);
  FOR t IN SELECT DISTINCT w.table_schema, w.table_name FROM restcache_watched_key w LOOP
    rel := format('%I.%I', t.table_schema, t.table_name);
    IF to_regclass(rel) IS NOT NULL THEN
      FOR d IN SELECT * FROM restcache_descendants(rel::regclass) LOOP
        IF NOT d.is_partition THEN
          EXECUTE format('DROP TRIGGER IF EXISTS restcache_changed ON %s', d.relid);
        END IF;
        EXECUTE format('DROP TRIGGER IF EXISTS restcache_truncated ON %s', d.relid);
      END LOOP;
      EXECUTE format('DROP TRIGGER IF EXISTS restcache_changed ON %s', rel);
      EXECUTE format('DROP TRIGGER IF EXISTS restcache_truncated ON %s', rel);
    END IF;
  END LOOP;
  PERFORM set_config('restcache.adding_triggers', 'off', true);
END
$fn$;

-- The second step of a switch to the WAL: once the instances reading the
-- change log have moved (persistence/pg/feed_switch.hpp), the row triggers
-- go. The removal is logged through them first ("!:" keys, read like a
-- write): an instance still polling the log (an older build, or one pinned
-- to the triggers) checks at once and stops serving what the log no longer
-- reports. The transaction is recorded (restcache_triggers_logged). False
-- when there were none to remove, or the feed is not the WAL.
CREATE OR REPLACE FUNCTION restcache_retire_triggers()
RETURNS boolean LANGUAGE plpgsql AS $fn$
DECLARE
  k text[];
BEGIN
  IF restcache_feed() <> 'wal'
     OR NOT EXISTS (SELECT 1 FROM pg_trigger g
                     WHERE g.tgname IN ('restcache_changed', 'restcache_truncated') AND NOT g.tgisinternal) THEN
    RETURN false;
  END IF;
  SELECT array_agg(DISTINCT '!:' || quote_ident(w.table_schema) || '.' || quote_ident(w.table_name)) INTO k
    FROM restcache_watched_key w;
  IF k IS NOT NULL THEN
    EXECUTE format('INSERT INTO %s (keys) VALUES ($1)', restcache_log_table()) USING k;
  END IF;
  UPDATE restcache_feed SET triggers_removed = pg_current_xact_id();
  PERFORM restcache_install_triggers();
  RETURN true;
END
$fn$;

-- The reverse, for uninstalling: every watched table's triggers and their
-- generated functions, and the WAL feed's publication.
CREATE OR REPLACE FUNCTION restcache_remove_triggers()
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  t record;
BEGIN
  PERFORM restcache_remove_row_triggers();
  FOR t IN SELECT DISTINCT w.table_schema, w.table_name FROM restcache_watched_key w LOOP
    EXECUTE format('DROP FUNCTION IF EXISTS %I()', restcache_trigger_function(t.table_schema, t.table_name));
  END LOOP;
  DROP FUNCTION IF EXISTS restcache_truncated();
  IF EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'restcache') THEN
    EXECUTE 'DROP PUBLICATION restcache';
  END IF;
END
$fn$;

-- DDL on a watched table (a trigger disabled, a column altered or dropped, a
-- table renamed or dropped) is logged as "!:<schema>.<table>" in the DDL's
-- own transaction: instances read it like a write and check the table's
-- catalog at once, dropping what its fingerprint says may have changed, where
-- their periodic check (every changelog.drift-interval) could let a document
-- read in between be kept. The function also generates again the table's
-- row trigger function when a key column it reads is gone.
-- A rewrite such as ALTER COLUMN ... TYPE fires no row trigger. Event
-- triggers need a superuser; without one, the periodic check is all
-- (restcache_event_triggers says which).
CREATE OR REPLACE FUNCTION restcache_event_triggers()
RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  log_schema text := regexp_replace(restcache_log_table(), '\.change_log$', '');
BEGIN
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    RETURN 'not installed: creating event triggers needs a superuser; DDL is seen by the periodic catalog check';
  END IF;
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION %1$s.restcache_ddl_logged() RETURNS event_trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $body$
    DECLARE
      changed text[];
      redefined text[];
    BEGIN
      -- restcache's functions name their objects unqualified: its schema,
      -- for this function only.
      PERFORM set_config('search_path', 'pg_catalog, %1$s, pg_temp', true);
      IF TG_EVENT = 'sql_drop' THEN
        SELECT array_agg(DISTINCT '!:' || quote_ident(d.address_names[1]) || '.' || quote_ident(d.address_names[2]))
          INTO changed
          FROM pg_event_trigger_dropped_objects() d
          JOIN %1$s.restcache_watched_key w
            ON w.table_schema = d.address_names[1] AND w.table_name = d.address_names[2]
         WHERE d.object_type IN ('table', 'table column', 'trigger');
      ELSE
        -- The watched tables the DDL touched: the table itself, or one it
        -- is a partition or an inheriting table of (at any level), whose
        -- reads now read other rows.
        SELECT array_agg(DISTINCT '!:' || quote_ident(n.nspname) || '.' || quote_ident(c.relname))
          INTO changed
          FROM pg_event_trigger_ddl_commands() e
          CROSS JOIN LATERAL (
            WITH RECURSIVE up(relid, depth) AS (
              SELECT CASE WHEN e.classid = 'pg_trigger'::regclass
                          THEN (SELECT g.tgrelid FROM pg_trigger g WHERE g.oid = e.objid) ELSE e.objid END, 0
              UNION ALL
              SELECT i.inhparent, up.depth + 1 FROM up JOIN pg_inherits i ON i.inhrelid = up.relid
               WHERE up.depth < 32)
            SELECT up.relid FROM up) u
          JOIN pg_class c ON c.oid = u.relid
          JOIN pg_namespace n ON n.oid = c.relnamespace
          JOIN %1$s.restcache_watched_key w ON w.table_schema = n.nspname AND w.table_name = c.relname
         WHERE e.classid IN ('pg_class'::regclass, 'pg_trigger'::regclass);
      END IF;
      IF changed IS NULL AND TG_EVENT = 'ddl_command_end' THEN
        -- A view, function, operator or type redefined: a document reading it
        -- may read otherwise now. Instances check what their kinds depend on
        -- at once (catalog_drift.hpp), dropping only the kinds that read it.
        SELECT array_agg(DISTINCT '!:' || e.object_identity) INTO redefined
          FROM pg_event_trigger_ddl_commands() e
         WHERE (e.classid IN ('pg_proc'::regclass, 'pg_type'::regclass, 'pg_operator'::regclass,
                              'pg_rewrite'::regclass)
                OR (e.classid = 'pg_class'::regclass AND e.object_type = 'view'))
           AND e.object_identity NOT LIKE '%%restcache\_%%';
        IF redefined IS NOT NULL THEN
          PERFORM %1$s.restcache_log_keys(redefined);
        END IF;
      END IF;
      IF changed IS NOT NULL THEN
        PERFORM %1$s.restcache_log_keys(changed);
        -- A key column renamed or dropped: the table's trigger function is
        -- generated again here, in the DDL's own transaction, so no write
        -- runs one that reads a column that is gone. A partition or an
        -- inheriting table created or attached gets its triggers here too.
        -- The triggers it creates run this function again: the flag keeps
        -- it from creating them twice.
        PERFORM %1$s.restcache_define_trigger_functions();
        IF coalesce(current_setting('restcache.adding_triggers', true), '') <> 'on' THEN
          PERFORM %1$s.restcache_descendant_triggers(true);
        END IF;
      END IF;
      -- Whatever the DDL was (a primary key or an identity index dropped, a
      -- partition without one attached): no published table may be left
      -- without an identity, or its writers' updates fail.
      IF %1$s.restcache_feed() = 'wal' THEN
        PERFORM %1$s.restcache_unpublish_unusable();
      END IF;
    EXCEPTION WHEN OTHERS THEN
      -- Never the administrator's DDL that fails for restcache.
      RAISE WARNING 'restcache: could not log DDL on a watched table (%%); instances see it at their next catalog check', SQLERRM;
    END $body$$f$, log_schema, restcache_log_table());
  DROP EVENT TRIGGER IF EXISTS restcache_ddl_end;
  DROP EVENT TRIGGER IF EXISTS restcache_ddl_drop;
  EXECUTE format('CREATE EVENT TRIGGER restcache_ddl_end ON ddl_command_end'
                 ' WHEN TAG IN (''ALTER TABLE'', ''CREATE TRIGGER'', ''ALTER TRIGGER'', ''CREATE TABLE'','
                 ' ''CREATE TABLE AS'', ''SELECT INTO'', ''CREATE VIEW'', ''ALTER VIEW'', ''CREATE FUNCTION'','
                 ' ''ALTER FUNCTION'', ''ALTER TYPE'', ''ALTER DOMAIN'', ''CREATE RULE'', ''ALTER OPERATOR'')'
                 ' EXECUTE FUNCTION %s.restcache_ddl_logged()', log_schema);
  EXECUTE format('CREATE EVENT TRIGGER restcache_ddl_drop ON sql_drop'
                 ' EXECUTE FUNCTION %s.restcache_ddl_logged()', log_schema);
  -- Under session_replication_role = replica too (pg_restore, subscribers).
  ALTER EVENT TRIGGER restcache_ddl_end ENABLE ALWAYS;
  ALTER EVENT TRIGGER restcache_ddl_drop ENABLE ALWAYS;
  RETURN 'installed';
END
$fn$;

SELECT restcache_install_triggers();
-- After the install: a first install is no news to anyone; a repair later
-- (restcache-load --schema-only) is logged, so instances check at once.
SELECT restcache_event_triggers();
-- With the event triggers in place the generated functions need no guard
-- (restcache_trigger_source); without them, they keep it.
SELECT restcache_define_trigger_functions();

-- The declaration file whose kinds this database's instances serve, as
-- `restcache-load --documents FILE --schema-only` last applied it (one row;
-- none while only the demo is installed). An instance given no file serves
-- these; one given a file refuses to start when it differs; a running one
-- that sees them change says so and serves the new ones once restarted.
-- digest: XXH3-64 of the text, in hex (declarations/stored_declarations.hpp).
CREATE TABLE IF NOT EXISTS restcache_declarations (
  one        boolean PRIMARY KEY DEFAULT true CHECK (one),
  source     text NOT NULL,
  digest     text NOT NULL,
  origin     text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- What another server's restcache wrote is not this server's (version 14).
-- A publication FOR ALL TABLES takes restcache's tables along, and a
-- subscriber set up the usual way (pg_dump -s) has them too: its apply
-- worker would write the publisher's change-log rows, under the publisher's
-- xids (one number space for two counters: re-read at every poll while the
-- publisher's run ahead, missed once they fall behind), its horizon, its
-- digests and its feed state. This server's own triggers already log the
-- rows the apply worker writes to the watched tables. So every replicated
-- write to restcache's tables is skipped: the trigger is enabled REPLICA,
-- firing only where session_replication_role = replica, and there skips
-- only a row written by a logical replication worker itself (trigger depth
-- 1), never one restcache's own triggers write under it (depth 2), nor one a
-- session in replica mode writes (pg_restore, a bulk load).
CREATE OR REPLACE FUNCTION restcache_skip_replicated() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  IF pg_trigger_depth() = 1
     AND (SELECT a.backend_type FROM pg_stat_get_activity(pg_backend_pid()) a) LIKE 'logical replication%' THEN
    RETURN NULL;
  END IF;
  RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$fn$;

DO $do$ DECLARE t text; BEGIN
  FOREACH t IN ARRAY ARRAY['restcache_schema', 'change_log', 'change_log_horizon', 'change_log_digest',
                           'restcache_feed', 'wal_relay', 'wal_relay_head', 'restcache_replica_identity',
                           'restcache_watched_key', 'restcache_declarations'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = t::regclass AND g.tgname = 'restcache_not_replicated') THEN
      EXECUTE format('CREATE TRIGGER restcache_not_replicated BEFORE INSERT OR UPDATE OR DELETE ON %I'
                     ' FOR EACH ROW EXECUTE FUNCTION restcache_skip_replicated()', t);
      EXECUTE format('ALTER TABLE %I ENABLE REPLICA TRIGGER restcache_not_replicated', t);
    END IF;
  END LOOP;
END $do$;

INSERT INTO restcache_schema (version) VALUES (14) ON CONFLICT (version) DO NOTHING;

COMMIT;
