-- Shared by the bench scripts: JSON Accept, optional cookie, bearer and Connection: close,
-- all taken from the environment so that one script serves every variant.
wrk.headers["Accept"] = "application/json"
local cookie = os.getenv("BENCH_COOKIE")
if cookie and cookie ~= "" then wrk.headers["Cookie"] = cookie end
local bearer = os.getenv("BENCH_BEARER")
if bearer and bearer ~= "" then wrk.headers["Authorization"] = "Bearer " .. bearer end
if os.getenv("BENCH_CLOSE") == "1" then wrk.headers["Connection"] = "close" end
