-- paths.lua - wrk script for bench/run: GET the paths of a file (one per line) in turn, round and round.
-- usage: wrk ... -s bench/paths.lua URL -- PATHS_FILE
local paths = {}
local i = 0

function init(args)
  for line in io.lines(args[1]) do
    if line ~= "" then paths[#paths + 1] = line end
  end
  if #paths == 0 then error("no paths in " .. args[1]) end
end

function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
