"""TCP and UDP to an outside address. 192.0.2.1 is TEST-NET-1 (RFC 5737): reserved, never a real
host. Run only inside the sandbox, whose network namespace has no interface but a downed lo."""

import errno
import json
import socket

outcome = {}
for kind, sock_type in (("tcp", socket.SOCK_STREAM), ("udp", socket.SOCK_DGRAM)):
    try:  # the seccomp filter refuses AF_INET sockets themselves (EAFNOSUPPORT)
        s = socket.socket(socket.AF_INET, sock_type)
    except OSError as e:
        outcome[kind] = errno.errorcode.get(e.errno, str(e))
        continue
    s.settimeout(2)
    try:
        if kind == "tcp":
            s.connect(("192.0.2.1", 80))
            outcome[kind] = "connected"
        else:
            s.sendto(b"x", ("192.0.2.1", 9))
            outcome[kind] = "sent"
    except OSError as e:
        outcome[kind] = errno.errorcode.get(e.errno, str(e)) if e.errno else type(e).__name__
    s.close()
outcome["interfaces"] = sorted(name for _, name in socket.if_nameindex())
print(json.dumps(outcome))
