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
-- the horizon past them; returns how many went.
CREATE OR REPLACE FUNCTION restcache_prune_change_log(batch int DEFAULT 20000)
RETURNS bigint LANGUAGE sql AS $fn$
  WITH h AS (SELECT max_age FROM change_log_horizon),
  d AS (DELETE FROM change_log WHERE seq IN (
          SELECT seq FROM change_log, h
          WHERE changed_at < now() - h.max_age
          ORDER BY seq LIMIT batch)
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
-- entries N times. A replay of at least digest_from entries takes a lock, so
-- large replays run one at a time; the first one stores the distinct keys it
-- read as a digest, and the next ones read that one row (plus the few entries
-- around it) instead of the log. A digest covers every entry with
-- from_xid <= xid < upto_xid: upto_xid is the xmin of the snapshot that read
-- them, so every transaction below it had ended and none can add an entry
-- there later. Kept 10 minutes; never needed for correctness (a reader
-- without a usable digest reads the log as before).
CREATE TABLE IF NOT EXISTS change_log_digest (
  from_xid  xid8 NOT NULL,
  upto_xid  xid8 NOT NULL,
  made_at   timestamptz NOT NULL DEFAULT now(),
  max_seq   bigint NOT NULL,
  entries   bigint NOT NULL,
  truncated bool NOT NULL,
  dept_ids  int[] NOT NULL,
  emp_ids   int[] NOT NULL
);

-- The entries a reader at `watermark` must replay (entity, id, seq, us; at
-- most max_entries rows), read directly or through a digest. Keys from a
-- digest carry its highest sequence and no change time. Callers read
-- change_log_horizon after it (a prune that ran meanwhile shows there).
CREATE OR REPLACE FUNCTION restcache_replay(watermark xid8, max_entries bigint, digest_from int DEFAULT 10000)
RETURNS TABLE (entity text, id int, seq bigint, us bigint)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  d change_log_digest;
  usable bool := false;
BEGIN
  IF (SELECT count(*) FROM (SELECT 1 FROM change_log c WHERE c.xid >= watermark LIMIT digest_from) s) < digest_from THEN
    RETURN QUERY
      SELECT c.entity, c.id, c.seq, (extract(epoch FROM c.changed_at) * 1000000)::bigint
      FROM change_log c WHERE c.xid >= watermark ORDER BY c.seq LIMIT max_entries;
    RETURN;
  END IF;
  -- 'restcach' + 1: one large replay at a time, so the next one finds the
  -- digest this one leaves.
  PERFORM pg_advisory_xact_lock(7310593858020254569);
  SELECT * INTO d FROM change_log_digest g
   WHERE g.upto_xid > watermark AND g.made_at > now() - interval '10 minutes'
   ORDER BY g.upto_xid DESC LIMIT 1;
  IF FOUND THEN
    -- Usable when what it does not cover (below its from_xid, from its
    -- upto_xid on) is few entries.
    usable := (SELECT count(*) FROM (SELECT 1 FROM change_log c
                WHERE (c.xid >= watermark AND c.xid < d.from_xid) OR c.xid >= d.upto_xid
                LIMIT digest_from) s) < digest_from;
  END IF;
  IF NOT usable THEN
    DELETE FROM change_log_digest g WHERE g.made_at <= now() - interval '10 minutes';
    INSERT INTO change_log_digest (from_xid, upto_xid, max_seq, entries, truncated, dept_ids, emp_ids)
      SELECT watermark, pg_snapshot_xmin(pg_current_snapshot()), coalesce(max(c.seq), 0), count(*),
             coalesce(bool_or(c.entity = 'truncate'), false),
             coalesce(array_agg(DISTINCT c.id) FILTER (WHERE c.entity = 'dept'), '{}'),
             coalesce(array_agg(DISTINCT c.id) FILTER (WHERE c.entity = 'emp'), '{}')
      FROM change_log c WHERE c.xid >= watermark
      RETURNING * INTO d;
  END IF;
  RETURN QUERY
    SELECT u.entity, u.id, u.seq, u.us FROM (
      SELECT 'dept'::text AS entity, k.id, d.max_seq AS seq, 0::bigint AS us FROM unnest(d.dept_ids) k(id)
      UNION ALL
      SELECT 'emp'::text, k.id, d.max_seq, 0::bigint FROM unnest(d.emp_ids) k(id)
      UNION ALL
      SELECT 'truncate'::text, 0, d.max_seq, 0::bigint WHERE d.truncated
      UNION ALL
      SELECT c.entity, c.id, c.seq, (extract(epoch FROM c.changed_at) * 1000000)::bigint
      FROM change_log c
      WHERE (c.xid >= watermark AND c.xid < d.from_xid) OR c.xid >= d.upto_xid) u
    LIMIT max_entries;
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
