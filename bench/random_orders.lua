-- SPDX-License-Identifier: Apache-2.0
-- wrk script: GET /orders/{code} of the shop example (examples/shop), codes
-- SO/2026/000001 .. SO/2026/ORDERS (env, default 10000) uniform, escaped as a
-- path needs them.
local orders = tonumber(os.getenv("ORDERS") or "10000")
math.randomseed(os.time())
request = function()
  return wrk.format("GET", string.format("/orders/SO%%2F2026%%2F%06d", math.random(1, orders)))
end
