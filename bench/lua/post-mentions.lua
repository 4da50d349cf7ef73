-- POST chat messages into a room of many members: every EVERY-th names one of them ("@Bench <i>", i below
-- MEMBERS), which makes an inbox item for that person (written after the post, in a batch); the others name no one.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local n = 0
request = function()
  n = n + 1
  local body
  if n % EVERY == 0 then
    body = string.format('{"content":"@Bench %d could you look at this, message %d"}', n % MEMBERS, n)
  else
    body = string.format('{"content":"hello from the bench, message %d"}', n)
  end
  return wrk.format(nil, nil, nil, body)
end
