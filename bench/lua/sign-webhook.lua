-- POST Standard Webhooks deliveries signed beforehand by the scenario (bench/webhooks.ts), one per request, from
-- the file FILE: one per line, tab-separated: path, webhook-id, webhook-timestamp, webhook-signature, body. Each
-- has its own webhook-id, so the server verifies, deduplicates and stores every one. (Signed here, in Lua, each
-- request cost wrk's core about as much as the server's: wrk capped the rate being measured.) Thread k of
-- THREADS sends lines k+1, k+1+THREADS, ...; past the last line it asks for a path that answers 404, so that a
-- run the file was too short for fails instead of measuring deliveries answered from the server's memory of ids.
local threads = 0
setup = function(thread)
  thread:set("OFFSET", threads)
  threads = threads + 1
end

local requests = {}
local exhausted
init = function()
  exhausted = wrk.format("POST", "/api/v1/hooks/the-file-of-signed-deliveries-ran-out", nil, "")
  local i = 0
  for line in io.lines(FILE) do
    if i % THREADS == OFFSET then
      local path, id, timestamp, signature, body = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
      requests[#requests + 1] = wrk.format("POST", path, {
        ["Content-Type"] = "application/json",
        ["webhook-id"] = id,
        ["webhook-timestamp"] = timestamp,
        ["webhook-signature"] = signature,
      }, body)
    end
    i = i + 1
  end
end

local n = 0
request = function()
  n = n + 1
  return requests[n] or exhausted
end
