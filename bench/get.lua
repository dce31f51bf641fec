-- get.lua - wrk script for bench/run: GET /api/games/{id}, going round the game ids of a file
-- (one per line, "<id>" or "<id> <token>"; only the id is used), from a random starting point.
-- usage: wrk ... -s bench/get.lua URL -- IDS_FILE
local ids = {}
local i = 0

function init(args)
  for line in io.lines(args[1]) do
    local id = line:match("^(%S+)")
    if id then ids[#ids + 1] = id end
  end
  if #ids == 0 then error("no game ids in " .. args[1]) end
  math.randomseed(os.time())
  i = math.random(#ids)
end

function request()
  i = i % #ids + 1
  return wrk.format("GET", "/api/games/" .. ids[i])
end
