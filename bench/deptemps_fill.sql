-- SPDX-License-Identifier: Apache-2.0
-- pgbench script: the daemon's fill of GET /deptemps/{id} (persistence/pg/
-- statements.cpp, restcache_fetch_deptemps: one department and its employees in
-- one round trip), for a random id in 1..:depts (pgbench -D depts=N).
-- bench/campaign runs it with -M prepared next to cache.mode=none.
\set id random(1, :depts)
SELECT d.deptno, d.dname, d.loc,
       e.empno, e.ename, e.job, e.mgr, to_char(e.hiredate, 'YYYY-MM-DD'),
       e.sal, e.comm, e.deptno
  FROM dept d LEFT JOIN emp e ON e.deptno = d.deptno
 WHERE d.deptno = :id
 ORDER BY e.empno;
