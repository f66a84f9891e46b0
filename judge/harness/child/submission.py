"""Loading the submission and binding it to one input set's arguments; classifying what it
raises. Everything here runs with the submission's code in this process."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from typing import Any

import torch

from judge.harness import languages
from judge.harness.child.channel import Channel, Stop
from judge.harness.child.triton_interpreter import needs_gpu_in
from judge.harness.common.child_job import ChildJob
from judge.harness.common.errors import exception_text, syntax_error_message, trim, user_traceback
from judge.harness.common.frames import Error
from judge.harness.languages import LoadError


def load_module(path: str, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class Submission:
    """A loaded submission, bound per input set to a zero-argument call."""

    def __init__(self, job: ChildJob, channel: Channel) -> None:
        self.language = languages.get(job.language)
        self.path = job.paths["solution"]
        self.shown_as = job.shown_as
        self.names = job.signature
        self.n_tensors = len(job.inputs) + len(job.outputs)
        self.channel = channel
        self.fn: Any = None
        self.cupy: Any = None  # the cupy module, where the language imports it (memory accounting)

    def load(self) -> None:
        """The submission's solve(), or an error frame saying why there is none (then Stop)."""
        try:
            self.fn = self.language.load(self.path, self.names, self.n_tensors)
        except SyntaxError as exc:
            self.channel.send(Error(verdict="compile_error", message=syntax_error_message(exc, self.shown_as)))
            raise Stop from None
        except LoadError as exc:
            self.channel.send(Error(verdict="runtime_error", message=str(exc)))
            raise Stop from None
        except BaseException as exc:
            self.channel.send(classify(exc, self.path, self.shown_as, stage="importing your module"))
            raise Stop from None

    def bind(self, inputs: list[torch.Tensor], outputs: list[torch.Tensor], sizes: list[int]) -> Callable[[], Any]:
        fn = self.fn
        args = self.language.arguments(inputs, outputs, sizes)

        def call() -> Any:
            return fn(*args)

        return call


def classify(exc: BaseException, path: str, shown_as: str, stage: str) -> Error:
    """Map an exception raised by the submission to a verdict and a user-facing message."""
    name = type(exc).__name__
    module = type(exc).__module__ or ""
    needs_gpu = needs_gpu_in(exc)
    if needs_gpu is not None:
        return Error(verdict="rejected", message=needs_gpu.message())
    said = exception_text(exc)
    if isinstance(exc, torch.cuda.OutOfMemoryError | MemoryError) or "out of memory" in said.lower():
        return Error(verdict="memory_limit", message=f"out of memory while {stage}: {trim(said, 2000)}")
    text = user_traceback(exc, path, shown_as)
    if name == "CompilationError" and module.startswith("triton"):
        return Error(verdict="compile_error", message=f"Triton could not compile your kernel:\n{text}")
    return Error(verdict="runtime_error", message=f"error while {stage}:\n{text}")
