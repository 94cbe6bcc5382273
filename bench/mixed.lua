-- Mixed traffic of make soak, in steady state: a cycle of session check, REST session read,
-- configuration read, login, logout of an earlier login (REST DELETE), notification insert,
-- delete of an earlier notification, and userinfo (or a static file when no token was minted).
-- What the run creates it also removes, so RSS that grows is a leak, not stored data.
-- Every answer expected is a 2xx: wrk's non-2xx count must stay 0. SOAK_READONLY=1 replaces
-- the writes by session reads.
local sid = os.getenv("BENCH_SID") or ""
local token = os.getenv("BENCH_BEARER") or ""
local readonly = os.getenv("SOAK_READONLY") == "1"
local i, tid = 0, 0
local logins, refs = {}, {}
-- A notification is deleted only AGE seconds after its insert was sent: by then that insert
-- was answered (wrk gives up on an answer after 5 s).
local AGE = 6
function setup(thread)
  thread:set("tid", math.random(1, 1000000000))
end
function init(args)
  tid = wrk.thread:get("tid") or 0
end
function response(status, headers, body)
  local id = body and string.match(body, '[{,]"id":"(%x+)"')
  if id then
    table.insert(logins, id)
  end
end
local function read(json)
  return wrk.format("GET", "/sessions/global/" .. sid, json)
end
function request()
  i = i + 1
  local k = i % 8
  local json = {["Accept"] = "application/json", ["Cookie"] = "lemonldap=" .. sid}
  if k == 0 then
    return wrk.format("GET", "/", json)
  elseif k == 1 then
    return read(json)
  elseif k == 2 then
    return wrk.format("GET", "/config/latest", json)
  elseif readonly and k >= 3 and k <= 6 then
    return read(json)
  elseif k == 3 then
    return wrk.format("POST", "/", {["Accept"] = "application/json",
      ["Content-Type"] = "application/x-www-form-urlencoded"}, "user=rtyler&password=rtyler")
  elseif k == 4 then
    local old = table.remove(logins, 1)
    if not old then return read(json) end
    return wrk.format("DELETE", "/sessions/global/" .. old, json)
  elseif k == 5 then
    local ref = string.format("S%d-%d", tid, i)
    table.insert(refs, {ref, os.time()})
    local body = string.format('{"uid":"msmith","date":"2024-01-01","reference":"%s","text":"t"}', ref)
    return wrk.format("POST", "/notifications", {["Content-Type"] = "application/json"}, body)
  elseif k == 6 then
    if #refs == 0 or os.time() - refs[1][2] < AGE then return read(json) end
    return wrk.format("DELETE", "/notifications/msmith/" .. table.remove(refs, 1)[1], json)
  elseif token ~= "" then
    return wrk.format("GET", "/oauth2/userinfo", {["Authorization"] = "Bearer " .. token})
  end
  return wrk.format("GET", "/static/limette.css")
end
