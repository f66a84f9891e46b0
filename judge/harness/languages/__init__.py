"""The languages a submission can be written in, one module each (docs/architecture.md).

Each module declares what the rest of the harness needs to know of its language: what the
parent checks in the source before anything runs, whether the parent compiles it, what the
child imports and sets up before the guard's snapshot, how the child loads the submission and
hands it one input set's arguments. The parent and the child ask these declarations instead of
comparing language names, so adding a language is a module here and its name in judge/spec.py's
LANGUAGES (and a starter per problem). This package imports neither the parent nor the child.
"""

from __future__ import annotations

from judge.harness.languages import cuda, cupy, pytorch, triton
from judge.harness.languages.base import Language, LoadError

LANGUAGES: dict[str, Language] = {lang.name: lang for lang in (triton.TRITON, cuda.CUDA, pytorch.PYTORCH, cupy.CUPY)}


def get(name: str) -> Language:
    """The language called `name`; KeyError for a name the judge does not know."""
    return LANGUAGES[name]


__all__ = ["LANGUAGES", "Language", "LoadError", "get"]
