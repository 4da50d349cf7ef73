-- PATCH /api/v1/me with a new display name on every request (the Authorization header comes from wrk -H).
wrk.method = "PATCH"
wrk.headers["Content-Type"] = "application/json"
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, '{"display_name":"bench ' .. n .. '"}')
end
