-- SPDX-License-Identifier: Apache-2.0
-- wrk script: PUT /depts/{id} with a whole department document as the body
-- (the shape GET /deptemps/{id} answers, fetched beforehand: one JSON
-- document per line in the file named by WRITE_DOCS). Each request takes a
-- random document, gives one random employee a new salary (so the write
-- changes the dept row, rewritten as a whole, and one emp row: 3 change
-- notifications) and keeps the changed document for the next pick of the
-- same department. Statuses and the first non-2xx answers
-- are printed by done() (bench/write_common.lua).
--   WRITE_DOCS=docs.jsonl wrk -t1 -c8 -d10s --latency -s bench/write_put_dept.lua http://127.0.0.1:PORT/
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "write_common.lua")

local docs, ids, sals = {}, {}, {}
local headers = { ["Content-Type"] = "application/json" }

function init(args)
  write_init()
  local path = os.getenv("WRITE_DOCS") or error("WRITE_DOCS: the file of documents to PUT")
  for line in io.lines(path) do
    local id = line:match('^{"deptNumber":(%d+)')
    if id then
      local n = 0
      for _ in line:gmatch('"sal":%d+') do n = n + 1 end
      docs[#docs + 1], ids[#ids + 1], sals[#sals + 1] = line, id, n
    end
  end
  if #docs == 0 then error("no documents in " .. path) end
  math.randomseed(os.time() + os.clock() * 1e6)
end

function request()
  local i = math.random(#docs)
  local doc = docs[i]
  if sals[i] > 0 then
    local k, j = math.random(sals[i]), 0
    doc = doc:gsub('"sal":%d+', function(m)
      j = j + 1
      if j == k then return '"sal":' .. math.random(1000, 999999) end
    end)
    docs[i] = doc
  end
  return wrk.format("PUT", "/depts/" .. ids[i], headers, doc)
end
