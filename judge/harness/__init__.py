"""The judging harness: `judge_job(job) -> Report` (see docs/judging.md and docs/interfaces.md).

Attributes are imported lazily: the sandboxed child imports this package too, and must not pull
in the parent's code (or torch before it needs it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.harness.parent.config import JudgeConfig
    from judge.harness.parent.judging import judge_job

__all__ = ["JudgeConfig", "default_config", "judge_job"]


def __getattr__(name: str) -> Any:
    if name == "judge_job":
        from judge.harness.parent.judging import judge_job

        return judge_job
    if name == "JudgeConfig":
        from judge.harness.parent.config import JudgeConfig

        return JudgeConfig
    if name == "default_config":
        from judge.harness.parent.config import default_config

        return default_config
    raise AttributeError(name)
