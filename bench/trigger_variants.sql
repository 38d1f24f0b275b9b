-- SPDX-License-Identifier: Apache-2.0
-- Trigger variants for bench/trigger_variants: what shape of change log a
-- writer can afford. Each variant is an AFTER UPDATE row trigger on emp,
-- created disabled; the driver enables one at a time (restcache's own
-- trigger, restcache_changed, is "today"). Only UPDATE is covered: the
-- benchmark's writers update one employee's salary. The spike was run
-- before schema version 7 (its figures in docs/benchmarks.md), when "today"
-- was version 6's notifying trigger; version 7 is lean1brin, SECURITY
-- DEFINER, plus a now() column.
--   lean2      version 6's two rows per change (the employee and its
--              department, entity and id), without the NOTIFY
--   lean1      one row per change, the document keys as text[], a btree on
--              seq (primary key) and one on xid
--   lean1brin  the same row, a BRIN index on seq and nothing else
--   secdef     lean1brin's function as SECURITY DEFINER with a pinned
--              search_path (what writers without grants on the log need)
CREATE SCHEMA IF NOT EXISTS rc;

CREATE TABLE IF NOT EXISTS rc.log0 (
  seq bigserial PRIMARY KEY,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  entity text NOT NULL,
  id int NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE INDEX IF NOT EXISTS log0_xid ON rc.log0 (xid);
CREATE OR REPLACE FUNCTION rc.lean2_emp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO rc.log0 (entity, id)
  SELECT v.entity, v.id FROM (VALUES ('emp', OLD.empno), ('emp', NULLIF(NEW.empno, OLD.empno)),
       ('dept', OLD.deptno), ('dept', CASE WHEN NEW.deptno IS DISTINCT FROM OLD.deptno THEN NEW.deptno END)) AS v (entity, id)
  WHERE v.id IS NOT NULL;
  RETURN NULL;
END $$;

CREATE SEQUENCE IF NOT EXISTS rc.log1_seq CACHE 1;
CREATE TABLE IF NOT EXISTS rc.log1 (
  seq bigint NOT NULL DEFAULT nextval('rc.log1_seq') PRIMARY KEY,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  keys text[] NOT NULL);
CREATE INDEX IF NOT EXISTS log1_xid ON rc.log1 (xid);
CREATE OR REPLACE FUNCTION rc.lean1_emp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.empno = OLD.empno AND NEW.deptno IS NOT DISTINCT FROM OLD.deptno THEN
    INSERT INTO rc.log1 (keys) VALUES (ARRAY['e' || OLD.empno, 'd' || OLD.deptno]);
  ELSE
    INSERT INTO rc.log1 (keys) VALUES (ARRAY['e' || OLD.empno, 'e' || NEW.empno, 'd' || OLD.deptno, 'd' || NEW.deptno]);
  END IF;
  RETURN NULL;
END $$;

CREATE SEQUENCE IF NOT EXISTS rc.log2_seq CACHE 1;
CREATE TABLE IF NOT EXISTS rc.log2 (
  seq bigint NOT NULL DEFAULT nextval('rc.log2_seq'),
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  keys text[] NOT NULL);
CREATE INDEX IF NOT EXISTS log2_seq_brin ON rc.log2 USING brin (seq);
CREATE OR REPLACE FUNCTION rc.lean1brin_emp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.empno = OLD.empno AND NEW.deptno IS NOT DISTINCT FROM OLD.deptno THEN
    INSERT INTO rc.log2 (keys) VALUES (ARRAY['e' || OLD.empno, 'd' || OLD.deptno]);
  ELSE
    INSERT INTO rc.log2 (keys) VALUES (ARRAY['e' || OLD.empno, 'e' || NEW.empno, 'd' || OLD.deptno, 'd' || NEW.deptno]);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION rc.secdef_emp() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF NEW.empno = OLD.empno AND NEW.deptno IS NOT DISTINCT FROM OLD.deptno THEN
    INSERT INTO rc.log2 (keys) VALUES (ARRAY['e' || OLD.empno, 'd' || OLD.deptno]);
  ELSE
    INSERT INTO rc.log2 (keys) VALUES (ARRAY['e' || OLD.empno, 'e' || NEW.empno, 'd' || OLD.deptno, 'd' || NEW.deptno]);
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS v_lean2 ON emp;
CREATE TRIGGER v_lean2 AFTER UPDATE ON emp FOR EACH ROW EXECUTE FUNCTION rc.lean2_emp();
DROP TRIGGER IF EXISTS v_lean1 ON emp;
CREATE TRIGGER v_lean1 AFTER UPDATE ON emp FOR EACH ROW EXECUTE FUNCTION rc.lean1_emp();
DROP TRIGGER IF EXISTS v_lean1brin ON emp;
CREATE TRIGGER v_lean1brin AFTER UPDATE ON emp FOR EACH ROW EXECUTE FUNCTION rc.lean1brin_emp();
DROP TRIGGER IF EXISTS v_secdef ON emp;
CREATE TRIGGER v_secdef AFTER UPDATE ON emp FOR EACH ROW EXECUTE FUNCTION rc.secdef_emp();
ALTER TABLE emp DISABLE TRIGGER v_lean2, DISABLE TRIGGER v_lean1, DISABLE TRIGGER v_lean1brin, DISABLE TRIGGER v_secdef;
