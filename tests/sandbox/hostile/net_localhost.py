"""TCP to the services on this machine: PostgreSQL, Redis, the site. Run only inside the sandbox."""

import errno
import json
import socket

outcome = {}
for port in (5432, 6379, 8000):
    try:  # the seccomp filter refuses AF_INET sockets themselves (EAFNOSUPPORT)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    except OSError as e:
        outcome[str(port)] = errno.errorcode.get(e.errno, str(e))
        continue
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", port))
        outcome[str(port)] = "connected"
    except OSError as e:
        outcome[str(port)] = errno.errorcode.get(e.errno, str(e)) if e.errno else type(e).__name__
    finally:
        s.close()
# A Unix socket of the host (PostgreSQL's) must not be reachable either.
for path in ("/var/run/postgresql/.s.PGSQL.5432", "/run/postgresql/.s.PGSQL.5432", "/var/run/redis/redis.sock"):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        outcome[path] = "connected"
    except OSError as e:
        outcome[path] = errno.errorcode.get(e.errno, str(e))
    finally:
        s.close()
print(json.dumps(outcome))
