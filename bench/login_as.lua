-- A JSON login as BENCH_USER with BENCH_PASSWORD (the DBI rows' users); each request creates
-- a session.
dofile(os.getenv("BENCH_DIR") .. "/common.lua")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = "user=" .. os.getenv("BENCH_USER") .. "&password=" .. os.getenv("BENCH_PASSWORD")
