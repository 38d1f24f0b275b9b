-- SPDX-License-Identifier: Apache-2.0
-- wrk script: GET /deptemps/{id} with ids uniform in 1..DEPTS (env, default 10000).
local depts = tonumber(os.getenv("DEPTS") or "10000")
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/deptemps/" .. math.random(1, depts))
end
