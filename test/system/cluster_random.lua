-- SPDX-License-Identifier: Apache-2.0
-- wrk script for test/system/cluster (wrk -t1): GET /deptemps/{id} with ids uniform
-- in 1..DEPTS (env, default 10000), picked client-side, so every request is
-- its own key (not /depts/random, which is one URI for HAProxy's hash).
--
-- With TIMELINE set (env, a file), the thread appends one line per second of
-- wall clock in which responses arrived:
--   epoch_s requests 2xx 404 other_4xx 502 503 504 other_5xx_or_1xx_3xx
-- so that test/system/cluster can count the failed answers of a window (an instance
-- down, the failover) after the fact. Socket errors are not seen here (wrk
-- counts them in its summary); through HAProxy a dead instance shows as a
-- 5xx from HAProxy, not as a client socket error.
local depts = tonumber(os.getenv("DEPTS") or "10000")
local timeline = os.getenv("TIMELINE")
local the_thread

function setup(thread)
  the_thread = thread
end

function init(args)
  math.randomseed(os.time())
  out = timeline and io.open(timeline, "a") or nil
  sec = os.time()
  n, ok, nf, c4, c502, c503, c504, other = 0, 0, 0, 0, 0, 0, 0, 0
end

local function flush_second()
  if out and n > 0 then
    out:write(string.format("%d %d %d %d %d %d %d %d %d\n", sec, n, ok, nf, c4, c502, c503, c504, other))
    out:flush()
  end
  n, ok, nf, c4, c502, c503, c504, other = 0, 0, 0, 0, 0, 0, 0, 0
end

request = function()
  return wrk.format("GET", "/deptemps/" .. math.random(1, depts))
end

response = function(status, headers, body)
  local now = os.time()
  if now ~= sec then
    flush_second()
    sec = now
  end
  n = n + 1
  if status >= 200 and status < 300 then
    ok = ok + 1
  elseif status == 404 then
    nf = nf + 1
  elseif status >= 400 and status < 500 then
    c4 = c4 + 1
  elseif status == 502 then
    c502 = c502 + 1
  elseif status == 503 then
    c503 = c503 + 1
  elseif status == 504 then
    c504 = c504 + 1
  else
    other = other + 1
  end
end

-- The last, partial second: copied out of the thread's state.
function done(summary, latency, requests)
  if not timeline or not the_thread then
    return
  end
  local s, cnt = the_thread:get("sec"), the_thread:get("n")
  if cnt and cnt > 0 then
    local f = io.open(timeline, "a")
    f:write(string.format("%d %d %d %d %d %d %d %d %d\n", s, cnt, the_thread:get("ok"), the_thread:get("nf"),
      the_thread:get("c4"), the_thread:get("c502"), the_thread:get("c503"), the_thread:get("c504"),
      the_thread:get("other")))
    f:close()
  end
end
