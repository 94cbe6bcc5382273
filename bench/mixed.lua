-- Mixed traffic of make soak: a cycle of session check, REST session read, configuration read,
-- login, notification insert and userinfo (or a static file when no token was minted).
-- Every answer expected is a 2xx: wrk's non-2xx count must stay 0. SOAK_READONLY=1 replaces
-- the two writes by session reads, to tell memory that follows stored data from a leak.
local sid = os.getenv("BENCH_SID") or ""
local token = os.getenv("BENCH_BEARER") or ""
local readonly = os.getenv("SOAK_READONLY") == "1"
local i, tid = 0, 0
function setup(thread)
  thread:set("tid", math.random(1, 1000000000))
end
function init(args)
  tid = wrk.thread:get("tid") or 0
end
function request()
  i = i + 1
  local k = i % 6
  local json = {["Accept"] = "application/json", ["Cookie"] = "lemonldap=" .. sid}
  if k == 0 then
    return wrk.format("GET", "/", json)
  elseif k == 1 then
    return wrk.format("GET", "/sessions/global/" .. sid, json)
  elseif k == 2 then
    return wrk.format("GET", "/config/latest", json)
  elseif readonly and (k == 3 or k == 4) then
    return wrk.format("GET", "/sessions/global/" .. sid, json)
  elseif k == 3 then
    return wrk.format("POST", "/", {["Accept"] = "application/json",
      ["Content-Type"] = "application/x-www-form-urlencoded"}, "user=rtyler&password=rtyler")
  elseif k == 4 then
    local body = string.format('{"uid":"msmith","date":"2024-01-01","reference":"S%d-%d","text":"t"}', tid, i)
    return wrk.format("POST", "/notifications", {["Content-Type"] = "application/json"}, body)
  elseif token ~= "" then
    return wrk.format("GET", "/oauth2/userinfo", {["Authorization"] = "Bearer " .. token})
  end
  return wrk.format("GET", "/static/limette.css")
end
