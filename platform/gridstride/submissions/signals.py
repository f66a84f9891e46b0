"""Signals of the submission pipeline.

`submission_judged` is sent once per final write (after the transaction commits), never for
progress or ignored reports: leaderboards and notifications listen to it and to nothing else.
"""

from __future__ import annotations

from django.dispatch import Signal

# kwargs: submission (the Submission, as just recorded)
submission_judged = Signal()
