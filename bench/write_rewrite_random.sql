-- SPDX-License-Identifier: Apache-2.0
-- pgbench -f script: the transaction restcached runs for PUT /depts/random
-- (persistence/pg/writes.cpp: rewrite_random_dept in run_write): BEGIN, the
-- restcache_w_rewrite_random_dept UPDATE (a random department rewritten with
-- its own values, so only the triggers notice), the read of this
-- transaction's change-log entries (restcache_w_read_changes), COMMIT.
-- The database's limit for that write, without HTTP, actors or invalidation:
--   pgbench -n -M prepared -f bench/write_rewrite_random.sql -c 8 -j 2 -T 10 DSN
BEGIN;
WITH b AS (SELECT min(deptno) AS lo, max(deptno) AS hi FROM dept),
     r AS (SELECT lo + floor(random() * (hi::bigint - lo + 1))::bigint AS pick
             FROM b WHERE lo IS NOT NULL)
 UPDATE dept AS d SET dname = d.dname, loc = d.loc
  WHERE d.deptno = (SELECT deptno FROM dept WHERE deptno >= (SELECT pick FROM r)
                     ORDER BY deptno LIMIT 1)
 RETURNING d.deptno;
SELECT entity, id, max(seq), max((extract(epoch FROM changed_at) * 1000000)::bigint)
  FROM change_log WHERE xid = (SELECT pg_current_xact_id())
 GROUP BY entity, id ORDER BY 3;
COMMIT;
