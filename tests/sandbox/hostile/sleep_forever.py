"""Sleeps forever, using no CPU: only the wall clock can end it."""

import time

time.sleep(10**9)
