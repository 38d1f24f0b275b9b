-- SPDX-License-Identifier: Apache-2.0
-- wrk script: PUT /depts/random, the original service's write benchmark
-- (restcached rewrites a random department with its own values, so only the
-- triggers notice: one dept change notification per write). Statuses
-- and the first non-2xx answers are printed by done() (bench/write_common.lua).
--   wrk -t1 -c8 -d10s --latency -s bench/write_random_dept.lua http://127.0.0.1:PORT/
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "write_common.lua")

function init(args)
  write_init()
  req = wrk.format("PUT", "/depts/random", { ["Content-Length"] = "0" })
end

function request()
  return req
end
