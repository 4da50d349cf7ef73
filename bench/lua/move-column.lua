-- PATCH tasks of IDS (set by the bench, all in COLUMNS[1] at first) between the columns of COLUMNS: request n moves
-- task n mod #IDS to the column its pass (n div #IDS) did not leave it in, at a random position, so every request is
-- a move between columns. START continues the count of the runs before.
wrk.method = "PATCH"
wrk.headers["Content-Type"] = "application/json"
math.randomseed(42)
local n = START
request = function()
  local id = IDS[n % #IDS + 1]
  local column = COLUMNS[(math.floor(n / #IDS) + 1) % #COLUMNS + 1]
  n = n + 1
  return wrk.format(nil, PREFIX .. id, nil, '{"column_id":"' .. column .. '","position":' .. math.random(0, #IDS) .. '}')
end
