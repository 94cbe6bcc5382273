-- Single notification insert: POST /notifications with a reference unique per request, and
-- per run (BENCH_RUN: the bench loads the same instance more than once, and Lua's random
-- numbers repeat from one run to the next).
dofile(os.getenv("BENCH_DIR") .. "/common.lua")
local run = os.getenv("BENCH_RUN") or tostring(os.time())
local counter = 0
local tid = 0
local next_tid = 0
function setup(thread)
  next_tid = next_tid + 1
  thread:set("tid", next_tid)
end
function init(args)
  tid = wrk.thread:get("tid") or math.random(1, 1000000)
end
function request()
  counter = counter + 1
  local body = string.format(
    '{"uid":"dwho","date":"2024-01-01","reference":"B%s-%d-%d","title":"Bench","text":"t"}',
    run, tid, counter)
  return wrk.format("POST", "/notifications", {["Content-Type"] = "application/json"}, body)
end
