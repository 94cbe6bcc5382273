-- The OpenID Connect code flow, one step per request: GET /oauth2/authorize with the SSO
-- cookie (302 with a code), then POST /oauth2/token redeeming that code. Codes travel through a
-- per-thread queue; a code is redeemed once. Requests/s counts both steps.
dofile(os.getenv("BENCH_DIR") .. "/common.lua")
local codes = {}
local client = os.getenv("BENCH_CLIENT") or "demo"
local secret = os.getenv("BENCH_SECRET") or "demosecret"
local redirect = os.getenv("BENCH_REDIRECT") or "http://127.0.0.1:9999/cb"
local function enc(s)
  return (s:gsub("[^%w%-_%.~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end
local b64chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function b64(data)
  return ((data:gsub(".", function(x)
    local r, b = "", x:byte()
    for i = 8, 1, -1 do r = r .. (b % 2 ^ i - b % 2 ^ (i - 1) > 0 and "1" or "0") end
    return r
  end) .. "0000"):gsub("%d%d%d?%d?%d?%d?", function(x)
    if #x < 6 then return "" end
    local c = 0
    for i = 1, 6 do c = c + (x:sub(i, i) == "1" and 2 ^ (6 - i) or 0) end
    return b64chars:sub(c + 1, c + 1)
  end) .. ({ "", "==", "=" })[#data % 3 + 1])
end
local authorize = "/oauth2/authorize?response_type=code&client_id=" .. enc(client)
  .. "&scope=openid+profile+email&redirect_uri=" .. enc(redirect) .. "&state=s"
local basic = "Basic " .. b64(client .. ":" .. secret)
function request()
  local code = table.remove(codes)
  if code then
    return wrk.format("POST", "/oauth2/token",
      {["Content-Type"] = "application/x-www-form-urlencoded", ["Authorization"] = basic},
      "grant_type=authorization_code&code=" .. code .. "&redirect_uri=" .. enc(redirect))
  end
  return wrk.format("GET", authorize)
end
function response(status, headers, body)
  local loc = headers["Location"] or headers["location"]
  if loc then
    local code = loc:match("[?&]code=([^&]+)")
    if code then table.insert(codes, code) end
  end
end
