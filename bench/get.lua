-- GET of the URL given to wrk (headers from common.lua).
dofile(os.getenv("BENCH_DIR") .. "/common.lua")
