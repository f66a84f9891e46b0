"""socket() and socketpair() for every address family 0-45, each with the usual types, and
netlink with the protocols that reach beyond the job. Run only inside the sandbox."""

import errno
import json
import socket

TYPES = {"stream": socket.SOCK_STREAM, "dgram": socket.SOCK_DGRAM, "raw": socket.SOCK_RAW, "seqpacket": 5}


def attempt(make):
    try:
        made = make()
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    for s in made if isinstance(made, tuple) else (made,):
        s.close()
    return "ok"


outcome = {"socket": {}, "socketpair": {}, "netlink": {}}
for family in range(46):
    results = {name: attempt(lambda f=family, t=kind: socket.socket(f, t, 0)) for name, kind in TYPES.items()}
    # One answer for every type is written once (the output of a job is capped at 4 KiB).
    outcome["socket"][family] = results if len(set(results.values())) > 1 else results["stream"]
    outcome["socketpair"][family] = attempt(lambda f=family: socket.socketpair(f, socket.SOCK_STREAM))
# NETLINK_ROUTE (0) answers which interfaces exist; NETLINK_KOBJECT_UEVENT (15) would carry the
# host's device events; NETLINK_AUDIT (9), NETLINK_SOCK_DIAG (4) other processes' state.
for protocol in (0, 4, 9, 15):
    outcome["netlink"][protocol] = attempt(lambda p=protocol: socket.socket(16, socket.SOCK_RAW, p))
print(json.dumps(outcome))
