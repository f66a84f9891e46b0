"""Host memory bomb: allocate and touch memory until something stops us."""

chunks = []
while True:
    chunks.append(bytearray(16 << 20))  # bytearray zero-fills: the pages are really touched
