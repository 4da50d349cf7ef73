-- PATCH a random task of IDS (set by the scenario) to a random position of its column of COLUMN_SIZE tasks.
wrk.method = "PATCH"
wrk.headers["Content-Type"] = "application/json"
math.randomseed(42)
request = function()
  local id = IDS[math.random(#IDS)]
  local position = math.random(0, COLUMN_SIZE - 1)
  return wrk.format(nil, PREFIX .. id, nil, '{"position":' .. position .. '}')
end
