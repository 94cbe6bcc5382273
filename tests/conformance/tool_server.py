"""The OpenID Foundation's OP test tool (PyPI `oidctest` 0.8.2), served on 127.0.0.1 only.

This does what the tool's own launcher does (its `optt.Main` application on CherryPy: test
runs, the `authz_cb` / `authz_post` callbacks, the logout endpoints, the tool's public keys
under /jwks and /export) with three differences: it listens on loopback only, its instance
configuration comes from a JSON file written by `conformance.py` instead of the tool's
configuration server, and its HTML pages are the minimal ones in `html/` beside this file
(the driver reads results from the tool's log files, not from pages).

Usage: tool_server.py WORKDIR INSTANCE.json   (run from anywhere; the tool works in WORKDIR)
"""
import json
import logging
import os
import sys
import types

import tool_compat  # noqa: F401  (first: the shims the pinned packages need)
import cherrypy  # noqa: E402
from oic.oic.message import factory as oic_message_factory  # noqa: E402
from otest.aus.client import Factory  # noqa: E402
from otest.aus.handling_ph import WebIh  # noqa: E402
from otest.conf_setup import construct_app_args  # noqa: E402

from oidctest.cp import dump_log  # noqa: E402
from oidctest.file_system import FileSystem  # noqa: E402
from oidctest.op import check, func, oper, profiles  # noqa: E402
from oidctest.op.client import Client  # noqa: E402
from oidctest.op.profiles import PROFILEMAP  # noqa: E402
from oidctest.optt import Main  # noqa: E402
from oidctest.prof_util import ProfileHandler  # noqa: E402
from oidctest.session import SessionHandler  # noqa: E402
from oidctest.tool import WebTester  # noqa: E402

import otest.flow  # noqa: E402

_match_usage = otest.flow.match_usage


def match_usage(spec, **kwargs):
    """The tool's flows write some profile flags as "T"/"F", its matcher wants booleans."""
    usage = spec.get("usage")
    if isinstance(usage, dict):
        usage = {k: {"T": True, "F": False}.get(v, v) if isinstance(v, str) else v
                 for k, v in usage.items()}
        spec = dict(spec, usage=usage)
    return _match_usage(spec, **kwargs)


otest.flow.match_usage = match_usage

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    workdir, instance_file = sys.argv[1], sys.argv[2]
    with open(instance_file) as f:
        inst = json.load(f)
    os.chdir(workdir)
    for d in ("jwks", "export", "requests", "log", "server_log", "static", "keys"):
        os.makedirs(d, exist_ok=True)

    logging.basicConfig(filename="tool.log", level=logging.DEBUG,
                        format="%(asctime)s %(name)s:%(levelname)s %(message)s")

    port = inst["port"]
    # The service configuration the tool reads as a module.
    conf = types.ModuleType("conformance_tool_conf")
    conf.BASE = "http://127.0.0.1"
    conf.KEYS = [
        {"type": "RSA", "key": "keys/enc.key", "use": ["enc"]},
        {"type": "RSA", "key": "keys/sig.key", "use": ["sig"]},
        {"type": "EC", "crv": "P-256", "use": ["sig"]},
        {"type": "EC", "crv": "P-256", "use": ["enc"]},
    ]
    conf.FLOWDIR = inst["flows"]
    conf.TLS = False
    conf.SESSION_CHANGE_URL = "{}:{}/session_change".format(conf.BASE, port)
    sys.modules[conf.__name__] = conf

    args = types.SimpleNamespace(flowdir=inst["flows"], port=port, staticdir="jwks",
                                 path2port=None, insecure=inst.get("insecure", False), makodir=None,
                                 issuer=inst["issuer"], tag=inst["tag"])
    _path, webenv = construct_app_args(args, conf, oper, func, profiles, inst["entity"])
    webenv.update({"msg_factory": oic_message_factory, "profile_map": PROFILEMAP,
                   "profile_handler": ProfileHandler, "client_factory": Factory(Client)})

    html = FileSystem(os.path.join(HERE, "html"))
    html.sync()

    cherrypy.tools.dumplog = cherrypy.Tool("before_finalize", dump_log)
    cherrypy.config.update({
        "environment": "production",
        "log.error_file": "site.log",
        "log.screen": False,
        "tools.trailing_slash.on": False,
        "tools.sessions.on": True,
        "tools.encode.on": True,
        "tools.encode.encoding": "utf-8",
        "tools.dumplog.on": True,
        "server.socket_host": "127.0.0.1",
        "server.socket_port": port,
        "engine.autoreload.on": False,
    })
    folder = os.path.abspath(os.curdir)
    app_conf = {"/": {"tools.staticdir.root": folder}}
    for d in ("static", "jwks", "export", "requests"):
        app_conf["/" + d] = {"tools.staticdir.dir": d, "tools.staticdir.on": True}

    sh = SessionHandler(inst["issuer"], inst["tag"], flows=webenv["flow_state"], **webenv)
    sh.iss = inst["issuer"]
    sh.tag = inst["tag"]
    sh.init_session(inst["entity"]["tool"]["profile"])
    info = WebIh(session=sh, pre_html=html, **webenv)
    tester = WebTester(info, sh, flows=webenv["flow_state"], check_factory=check.factory,
                       **webenv)
    cherrypy.tree.mount(Main(tester, webenv["flow_state"], webenv,
                             lambda name: name.split("-")[1]), "/", app_conf)
    cherrypy.engine.start()
    print("tool listening on http://127.0.0.1:{}/ tests: {}".format(
        port, " ".join(sorted(sh["tests"]))), flush=True)
    cherrypy.engine.block()


if __name__ == "__main__":
    main()
