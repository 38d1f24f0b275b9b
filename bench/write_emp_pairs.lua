-- SPDX-License-Identifier: Apache-2.0
-- wrk script: POST /depts/emps and DELETE /depts/emps/{id} in pairs. New
-- employees get the numbers EMP_BASE+1, EMP_BASE+2, ... (above every loaded
-- one) in a random department of 1..DEPTS. Requests alternate POST of a new
-- employee and DELETE of the oldest one whose POST was answered 201 (its
-- number read from the answer, {"empNo":N}), a POST when none is waiting.
-- (So no DELETE can overtake its POST; wrk also calls request() once to
-- check the script, a POST never sent.) Those created and not deleted when
-- wrk stops (about the connection count) are left: delete empno > EMP_BASE
-- afterwards. Each POST and each DELETE is 2 change notifications (emp and
-- dept). Statuses and the first non-2xx answers are printed by done()
-- (bench/write_common.lua).
--   EMP_BASE=1000000000 DEPTS=10000 wrk -t1 -c8 -d10s --latency \
--     -s bench/write_emp_pairs.lua http://127.0.0.1:PORT/
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "write_common.lua")

local base = tonumber(os.getenv("EMP_BASE") or "1000000000")
local depts = tonumber(os.getenv("DEPTS") or "10000")
local posted, delete_next = 0, false
local created, head, tail = {}, 1, 0 -- queue of answered POSTs
local headers = { ["Content-Type"] = "application/json" }
local jobs = { "CLERK", "ANALYST", "SALESMAN", "TECHNICIAN" }

function init(args)
  write_init()
  math.randomseed(os.time() + os.clock() * 1e6)
end

function on_response(status, headers, body)
  if status == 201 then
    local id = body and body:match('"empNo":(%d+)')
    if id then
      tail = tail + 1
      created[tail] = id
    end
  end
end

function request()
  if delete_next and head <= tail then
    delete_next = false
    local id = created[head]
    created[head] = nil
    head = head + 1
    return wrk.format("DELETE", "/depts/emps/" .. id)
  end
  delete_next = true
  posted = posted + 1
  local id = base + posted
  local body = string.format(
    '{"empNo":%d,"empName":"Bench Writer %d","job":"%s","hiredate":"2024-%02d-%02d","sal":%d,"deptNumber":%d}',
    id, id, jobs[math.random(#jobs)], math.random(12), math.random(28), math.random(1000, 9999),
    math.random(depts))
  return wrk.format("POST", "/depts/emps", headers, body)
end
