"""A DNS lookup (the resolver would try a name server; there is none and no network)."""

import json
import socket

try:
    socket.getaddrinfo("example.com", 80)
    print(json.dumps({"dns": "resolved"}))
except OSError as e:
    print(json.dumps({"dns": type(e).__name__, "detail": str(e)}))
