-- SPDX-License-Identifier: Apache-2.0
-- wrk script: GET /deptemps/{id} for ids 1..DEPTS (env, default 10000) in order,
-- each once, then stops sending (use with -t1; a few more may be in flight at the
-- end). wrk still waits out its -d: bench/lmdb_tier.sh interrupts it (SIGINT).
-- A warm-up that touches every document, e.g. every page of the LMDB map.
local depts = tonumber(os.getenv("DEPTS") or "10000")
local next_id = 0
local answered = 0
request = function()
  next_id = next_id % depts + 1
  return wrk.format("GET", "/deptemps/" .. next_id)
end
response = function(status, headers, body)
  answered = answered + 1
  if answered >= depts then
    wrk.thread:stop()
  end
end
