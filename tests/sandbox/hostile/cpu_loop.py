"""Infinite CPU loop."""

while True:
    pass
