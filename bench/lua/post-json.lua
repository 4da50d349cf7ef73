-- POST a JSON body from BODY (set by the scenario), with a counter in it so every request differs.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, string.format(BODY, n))
end
