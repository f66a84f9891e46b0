"""gridstride: the command-line client of a Gridstride site (standard library only)."""

__version__ = "0.1.0"
