-- restcache schema, version 6 (persistence/pg/schema.hpp: schema_version).
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

-- Master and detail, as in the classic SCOTT schema.
CREATE TABLE IF NOT EXISTS dept (
  deptno int PRIMARY KEY,
  dname  text,
  loc    text
);

CREATE TABLE IF NOT EXISTS emp (
  empno    int PRIMARY KEY,
  ename    text,
  job      text,
  mgr      int REFERENCES emp ON DELETE SET NULL,
  hiredate date,
  sal      int,
  comm     int,
  deptno   int REFERENCES dept ON DELETE CASCADE
);

-- The department document joins on it; ON DELETE CASCADE and a dept key
-- change look rows up by it too.
CREATE INDEX IF NOT EXISTS emp_deptno_idx ON emp (deptno);

-- Deleting an employee sets the mgr of its reports to NULL (ON DELETE SET
-- NULL): without this index every such delete scans all of emp (~0.1-0.9 s
-- per employee at 1M rows, measured by bench/write_campaign.sh).
CREATE INDEX IF NOT EXISTS emp_mgr_idx ON emp (mgr);

-- Every change to dept or emp appends the keys of the cached documents it
-- affects, in the writing transaction. seq is taken at write time (not commit
-- time), so a reader replays from a watermark of transactions not yet known
-- complete, which xid lets it compute (pg_snapshot_xmin/pg_visible_in_snapshot).
CREATE TABLE IF NOT EXISTS change_log (
  seq        bigserial PRIMARY KEY,
  xid        xid8 NOT NULL DEFAULT pg_current_xact_id(),
  entity     text NOT NULL,
  id         int NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- 'truncate' (id 0) stands for a TRUNCATE of dept or emp: every cached
-- document may have changed. Named, so that version 3's narrower check is
-- replaced on migration.
ALTER TABLE change_log DROP CONSTRAINT IF EXISTS change_log_entity_check;
ALTER TABLE change_log ADD CONSTRAINT change_log_entity_check
  CHECK (entity IN ('dept', 'emp', 'truncate'));

-- Replay reads the entries of transactions not known complete at a watermark.
CREATE INDEX IF NOT EXISTS change_log_xid_idx ON change_log (xid);

-- Up to where the log may have lost entries: those of transactions with xid
-- <= pruned_below may be gone (pruned by changelog.retention, or reset by a
-- bulk load that bypassed the triggers). A reader whose watermark is not
-- above it cannot replay what it missed and drops its tiers instead.
CREATE TABLE IF NOT EXISTS change_log_horizon (
  one          bool PRIMARY KEY DEFAULT true CHECK (one),
  pruned_below xid8 NOT NULL DEFAULT '0'
);
INSERT INTO change_log_horizon DEFAULT VALUES ON CONFLICT DO NOTHING;

-- The log's own bound, which holds with no instance running (instances prune
-- what they have applied after changelog.retention; stopped or retired ones
-- prune nothing): entries older than max_age go, oldest first, from the
-- writes themselves (below). Operators change it with
-- UPDATE change_log_horizon SET max_age = '2 days'. An instance whose
-- watermark falls below what went drops its tiers, as after any prune.
ALTER TABLE change_log_horizon ADD COLUMN IF NOT EXISTS max_age interval NOT NULL DEFAULT '7 days';

-- Deletes up to `batch` entries older than max_age, oldest first, and raises
-- the horizon past them; returns how many went. It reads the oldest entry
-- and, only when that one has aged, the oldest `batch` (entries age in
-- sequence order, near enough for a bound): "every aged entry" would read
-- the whole log through the primary key whenever none has aged, which is
-- nearly always.
CREATE OR REPLACE FUNCTION restcache_prune_change_log(batch int DEFAULT 20000)
RETURNS bigint LANGUAGE sql AS $fn$
  WITH h AS (SELECT max_age FROM change_log_horizon),
  oldest AS (SELECT c.seq, c.changed_at FROM change_log c
             WHERE (SELECT o.changed_at < now() - (SELECT max_age FROM change_log_horizon)
                    FROM change_log o ORDER BY o.seq LIMIT 1)
             ORDER BY c.seq LIMIT batch),
  d AS (DELETE FROM change_log WHERE seq IN (
          SELECT o.seq FROM oldest o, h WHERE o.changed_at < now() - h.max_age)
        RETURNING xid),
  m AS (SELECT max(xid) AS x, count(*) AS n FROM d),
  u AS (UPDATE change_log_horizon SET pruned_below = greatest(pruned_below, m.x)
        FROM m WHERE m.x IS NOT NULL)
  SELECT n FROM m
$fn$;

CREATE OR REPLACE FUNCTION restcache_change_log_bound()
RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM restcache_prune_change_log();
  RETURN NULL;
END
$fn$;

-- Every 10,000th entry its writer prunes up to 20,000 aged ones, so pruning
-- outpaces appending once entries age past max_age. The WHEN clause is
-- evaluated without calling the function: the other writes pay nothing.
DROP TRIGGER IF EXISTS restcache_change_log_bound ON change_log;
CREATE TRIGGER restcache_change_log_bound
  AFTER INSERT ON change_log
  FOR EACH ROW WHEN (NEW.seq % 10000 = 0) EXECUTE FUNCTION restcache_change_log_bound();

-- Shared replay digests. Instances cut off together (a database restart, a
-- network cut) reconnect together and each replays the log from its own
-- watermark: after a large batch of writes, N instances would read the same
-- entries N times. A replay of at least digest_from entries looks for a
-- digest another one left: the distinct keys of every entry with
-- from_xid <= xid < upto_xid, upto_xid being the xmin of the snapshot that
-- read them (every transaction below it had ended, so none can add an entry
-- there later). Without one, it makes one under an advisory lock while the
-- others wait for it (in shared mode, then read it side by side). The ids are
-- kept as the text readers are sent ("1,2,3"): an int[] of 100,000 ids takes
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
  dept_count int NOT NULL,
  emp_count  int NOT NULL,
  dept_ids   text NOT NULL,
  emp_ids    text NOT NULL
);

-- The newest digest a reader at `watermark` can use (its digest_no, or
-- NULL): what it does not cover (below its from_xid, from its upto_xid on)
-- is fewer than `few` entries.
CREATE OR REPLACE FUNCTION restcache_usable_digest(watermark xid8, few int)
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

-- The entries a reader at `watermark` must replay (entity, id, seq, us; at
-- most max_entries rows, in no order), read directly or through a digest.
-- A digest's keys come as one row per entity with every id in `ids` (id
-- NULL), its highest sequence and no change time; callers count them against
-- max_entries themselves, and read change_log_horizon after this (a prune
-- that ran meanwhile shows there).
--
-- The planner has no statistics for a range of xid8 (it assumes a third of
-- the table matches) and would read the whole log for "xid >= watermark":
-- seqscan is off inside, so every read of the log goes through
-- change_log_xid_idx; and nothing is ordered by seq (which the primary key
-- would offer by reading all of it). JIT is off too: the tiny digest table is
-- still read by a sequential scan, whose cost "off" inflates past
-- jit_above_cost, and compiling it took ~70 ms in every new session.
CREATE OR REPLACE FUNCTION restcache_replay(watermark xid8, max_entries bigint, digest_from int DEFAULT 10000)
RETURNS TABLE (entity text, id int, seq bigint, us bigint, ids text)
LANGUAGE plpgsql SET enable_seqscan = off SET jit = off AS $fn$
#variable_conflict use_column
DECLARE
  n bigint;
  g record;
BEGIN
  IF (SELECT count(*) FROM (SELECT 1 FROM change_log c WHERE c.xid >= watermark LIMIT digest_from) s) >= digest_from THEN
    n := restcache_usable_digest(watermark, digest_from);
    IF n IS NULL THEN
      -- 'restcach' + 1. The first makes the digest; the others wait in
      -- shared mode and then read it together (or, when it does not suit
      -- them, the log: a shared holder may not make one).
      IF pg_try_advisory_xact_lock(7310593858020254569) THEN
        n := restcache_usable_digest(watermark, digest_from);
        IF n IS NULL THEN
          DELETE FROM change_log_digest x WHERE x.made_at <= now() - interval '10 minutes';
          INSERT INTO change_log_digest (from_xid, upto_xid, max_seq, entries, truncated,
                                         dept_count, emp_count, dept_ids, emp_ids)
            SELECT watermark, pg_snapshot_xmin(pg_current_snapshot()), coalesce(max(k.seq), 0),
                   coalesce(sum(k.n), 0), coalesce(bool_or(k.entity = 'truncate'), false),
                   count(*) FILTER (WHERE k.entity = 'dept'), count(*) FILTER (WHERE k.entity = 'emp'),
                   coalesce(string_agg(k.id::text, ',') FILTER (WHERE k.entity = 'dept'), ''),
                   coalesce(string_agg(k.id::text, ',') FILTER (WHERE k.entity = 'emp'), '')
            FROM (SELECT c.entity, c.id, max(c.seq) AS seq, count(*) AS n
                  FROM change_log c WHERE c.xid >= watermark GROUP BY c.entity, c.id) k
            RETURNING digest_no INTO n;
        END IF;
      ELSE
        PERFORM pg_advisory_xact_lock_shared(7310593858020254569);
        n := restcache_usable_digest(watermark, digest_from);
      END IF;
    END IF;
  END IF;
  IF n IS NULL THEN
    RETURN QUERY
      SELECT c.entity, c.id, c.seq, (extract(epoch FROM c.changed_at) * 1000000)::bigint, NULL::text
      FROM change_log c WHERE c.xid >= watermark LIMIT max_entries;
    RETURN;
  END IF;
  SELECT x.from_xid, x.upto_xid, x.max_seq, x.truncated INTO g FROM change_log_digest x WHERE x.digest_no = n;
  RETURN QUERY
    SELECT 'dept'::text, NULL::int, g.max_seq, 0::bigint, x.dept_ids
    FROM change_log_digest x WHERE x.digest_no = n AND x.dept_count > 0
    UNION ALL
    SELECT 'emp'::text, NULL::int, g.max_seq, 0::bigint, x.emp_ids
    FROM change_log_digest x WHERE x.digest_no = n AND x.emp_count > 0
    UNION ALL
    SELECT 'truncate'::text, 0, g.max_seq, 0::bigint, NULL::text WHERE g.truncated
    UNION ALL
    (SELECT c.entity, c.id, c.seq, (extract(epoch FROM c.changed_at) * 1000000)::bigint, NULL::text
     FROM change_log c
     WHERE (c.xid >= watermark AND c.xid < g.from_xid) OR c.xid >= g.upto_xid
     LIMIT max_entries);
END
$fn$;

-- The trigger functions append the keys of the cached documents a row change
-- affects and notify listeners with "<entity>:<id>:<seq>:<us>", us being the
-- change's time in microseconds since the epoch, for the invalidation latency
-- (NOTIFY is
-- transactional: listeners hear of it only if the transaction commits). They
-- run for every row of a bulk UPDATE, so each does all its work in ONE
-- statement: a data-modifying CTE inserts the (entity, id) pairs that are not
-- NULL and notifies per inserted row. (Measured on 100,000 emp rows: ~25%
-- faster than one INSERT plus one pg_notify per key, ~35% faster than calling
-- a helper function per key.) TG_OP picks the branch, so an INSERT never
-- reads OLD and a DELETE never reads NEW.

-- dept row changes: the department document of the old and the new key.
CREATE OR REPLACE FUNCTION restcache_dept_changed()
RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  n int;
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH c AS (
      INSERT INTO change_log (entity, id) VALUES ('dept', NEW.deptno)
      RETURNING entity, id, seq, (extract(epoch FROM changed_at) * 1000000)::bigint AS us)
    SELECT count(pg_notify('restcache_changes', c.entity || ':' || c.id || ':' || c.seq || ':' || c.us)) INTO n FROM c;
  ELSIF TG_OP = 'DELETE' THEN
    WITH c AS (
      INSERT INTO change_log (entity, id) VALUES ('dept', OLD.deptno)
      RETURNING entity, id, seq, (extract(epoch FROM changed_at) * 1000000)::bigint AS us)
    SELECT count(pg_notify('restcache_changes', c.entity || ':' || c.id || ':' || c.seq || ':' || c.us)) INTO n FROM c;
  ELSE
    WITH c AS (
      INSERT INTO change_log (entity, id)
      SELECT v.entity, v.id
      FROM (VALUES ('dept', OLD.deptno),
                   ('dept', NULLIF(NEW.deptno, OLD.deptno))) AS v (entity, id)
      WHERE v.id IS NOT NULL
      RETURNING entity, id, seq, (extract(epoch FROM changed_at) * 1000000)::bigint AS us)
    SELECT count(pg_notify('restcache_changes', c.entity || ':' || c.id || ':' || c.seq || ':' || c.us)) INTO n FROM c;
  END IF;
  RETURN NULL;
END
$fn$;

-- emp row changes: the employee document (old and new key) and the document
-- of every department the row was or is in (moves to or from NULL included).
CREATE OR REPLACE FUNCTION restcache_emp_changed()
RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  n int;
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH c AS (
      INSERT INTO change_log (entity, id)
      SELECT v.entity, v.id
      FROM (VALUES ('emp', NEW.empno), ('dept', NEW.deptno)) AS v (entity, id)
      WHERE v.id IS NOT NULL
      RETURNING entity, id, seq, (extract(epoch FROM changed_at) * 1000000)::bigint AS us)
    SELECT count(pg_notify('restcache_changes', c.entity || ':' || c.id || ':' || c.seq || ':' || c.us)) INTO n FROM c;
  ELSIF TG_OP = 'DELETE' THEN
    WITH c AS (
      INSERT INTO change_log (entity, id)
      SELECT v.entity, v.id
      FROM (VALUES ('emp', OLD.empno), ('dept', OLD.deptno)) AS v (entity, id)
      WHERE v.id IS NOT NULL
      RETURNING entity, id, seq, (extract(epoch FROM changed_at) * 1000000)::bigint AS us)
    SELECT count(pg_notify('restcache_changes', c.entity || ':' || c.id || ':' || c.seq || ':' || c.us)) INTO n FROM c;
  ELSE
    WITH c AS (
      INSERT INTO change_log (entity, id)
      SELECT v.entity, v.id
      FROM (VALUES ('emp', OLD.empno),
                   ('emp', NULLIF(NEW.empno, OLD.empno)),
                   ('dept', OLD.deptno),
                   ('dept', CASE WHEN NEW.deptno IS DISTINCT FROM OLD.deptno
                                 THEN NEW.deptno END)) AS v (entity, id)
      WHERE v.id IS NOT NULL
      RETURNING entity, id, seq, (extract(epoch FROM changed_at) * 1000000)::bigint AS us)
    SELECT count(pg_notify('restcache_changes', c.entity || ':' || c.id || ':' || c.seq || ':' || c.us)) INTO n FROM c;
  END IF;
  RETURN NULL;
END
$fn$;

-- TRUNCATE fires no row trigger: a statement trigger logs one 'truncate'
-- entry per truncated table, and the listener drops both tiers for it, live
-- and on replay (TRUNCATE dept CASCADE truncates emp too: two entries).
CREATE OR REPLACE FUNCTION restcache_truncated()
RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  n int;
BEGIN
  WITH c AS (
    INSERT INTO change_log (entity, id) VALUES ('truncate', 0)
    RETURNING entity, id, seq, (extract(epoch FROM changed_at) * 1000000)::bigint AS us)
  SELECT count(pg_notify('restcache_changes', c.entity || ':' || c.id || ':' || c.seq || ':' || c.us)) INTO n FROM c;
  RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS restcache_dept_changed ON dept;
CREATE TRIGGER restcache_dept_changed
  AFTER INSERT OR UPDATE OR DELETE ON dept
  FOR EACH ROW EXECUTE FUNCTION restcache_dept_changed();

DROP TRIGGER IF EXISTS restcache_emp_changed ON emp;
CREATE TRIGGER restcache_emp_changed
  AFTER INSERT OR UPDATE OR DELETE ON emp
  FOR EACH ROW EXECUTE FUNCTION restcache_emp_changed();

DROP TRIGGER IF EXISTS restcache_dept_truncated ON dept;
CREATE TRIGGER restcache_dept_truncated
  AFTER TRUNCATE ON dept
  FOR EACH STATEMENT EXECUTE FUNCTION restcache_truncated();

DROP TRIGGER IF EXISTS restcache_emp_truncated ON emp;
CREATE TRIGGER restcache_emp_truncated
  AFTER TRUNCATE ON emp
  FOR EACH STATEMENT EXECUTE FUNCTION restcache_truncated();

-- A trigger is created enabled in origin mode only: it does not fire in a
-- session with session_replication_role = replica, which is how logical
-- replication applies changes on a subscriber (and how some restore and ETL
-- tools write). ALWAYS makes every such write reach the caches too.
-- restcache-load disables them by name around its bulk batches and enables
-- them ALWAYS again in the same transaction (persistence/pg/data_generator.cpp).
ALTER TABLE dept ENABLE ALWAYS TRIGGER restcache_dept_changed,
                 ENABLE ALWAYS TRIGGER restcache_dept_truncated;
ALTER TABLE emp ENABLE ALWAYS TRIGGER restcache_emp_changed,
                ENABLE ALWAYS TRIGGER restcache_emp_truncated;
ALTER TABLE change_log ENABLE ALWAYS TRIGGER restcache_change_log_bound;

INSERT INTO restcache_schema (version) VALUES (6) ON CONFLICT (version) DO NOTHING;

COMMIT;
