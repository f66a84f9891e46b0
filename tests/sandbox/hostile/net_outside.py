"""TCP and UDP to an outside address. 192.0.2.1 is TEST-NET-1 (RFC 5737): reserved, never a real
host. Run only inside the sandbox, whose network namespace has no interface but a downed lo."""

import errno
import json
import socket

outcome = {}
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(2)
try:
    s.connect(("192.0.2.1", 80))
    outcome["tcp"] = "connected"
except OSError as e:
    outcome["tcp"] = errno.errorcode.get(e.errno, str(e)) if e.errno else type(e).__name__
s.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.sendto(b"x", ("192.0.2.1", 9))
    outcome["udp"] = "sent"
except OSError as e:
    outcome["udp"] = errno.errorcode.get(e.errno, str(e))
u.close()
outcome["interfaces"] = sorted(name for _, name in socket.if_nameindex())
print(json.dumps(outcome))
