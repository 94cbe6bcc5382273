-- JSON login: POST / with the Demo user's credentials; each request creates a session.
dofile(os.getenv("BENCH_DIR") .. "/common.lua")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = "user=dwho&password=dwho"
