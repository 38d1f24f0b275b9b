-- SPDX-License-Identifier: Apache-2.0
-- Shared by the bench/write_*.lua wrk scripts (loaded with dofile): counts the
-- response statuses and keeps the first few non-2xx answers (status and body,
-- which names the problem), printed by done() as
--   statuses: 200=N 404=M
--   non-2xx: 404 {"type":...,"detail":"employee 1050000007 does not exist"}
-- A script calls write_init() from its init(); it may define
-- on_response(status, headers, body), called for every response.
local threads = {}
local keep_errors = 5

function setup(thread)
  table.insert(threads, thread)
end

function write_init()
  statuses = {}
  errors = {}
end

function response(status, headers, body)
  if on_response then on_response(status, headers, body) end
  statuses[status] = (statuses[status] or 0) + 1
  if (status < 200 or status > 299) and #errors < keep_errors then
    errors[#errors + 1] = status .. " " .. string.sub(body or "", 1, 200)
  end
end

function done(summary, latency, requests)
  local agg, keys, out, errs = {}, {}, {}, {}
  for _, t in ipairs(threads) do
    for k, v in pairs(t:get("statuses") or {}) do agg[k] = (agg[k] or 0) + v end
    for _, e in ipairs(t:get("errors") or {}) do errs[#errs + 1] = e end
  end
  for k in pairs(agg) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do out[#out + 1] = k .. "=" .. agg[k] end
  io.write("statuses: " .. table.concat(out, " ") .. "\n")
  for _, e in ipairs(errs) do io.write("non-2xx: " .. e:gsub("\n", " ") .. "\n") end
end
