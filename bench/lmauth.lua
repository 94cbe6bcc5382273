-- The handler endpoint asked as nginx's auth_request asks it (conf/nginx-protect.conf): the
-- Host of a virtual host of locationRules (the bench's 127.0.0.1, port dropped), the URI it
-- routed on, the user's cookie (headers from common.lua); wrk on loopback is inside
-- handlerAllowFrom's default.
dofile(os.getenv("BENCH_DIR") .. "/common.lua")
wrk.headers["X-Original-URI"] = "/"
