"""The frames between parent and child, typed: one frozen dataclass per kind, one encoder, one
decoder (stdlib only; docs/architecture.md says how to add a kind). The child sends the kinds of
FromChild on its fd 4; the parent answers an Await or a Call with a Go on the child's fd 3.

framing.py moves a frame's bytes; this module says what a frame may hold. `encode` turns a frame
into the JSON object framing.py writes (its kind, then every field that is not None); `decode`
turns a JSON object back into its frame, checking it against the dataclass's own type hints:

- every field the class has no default for is present, and no field the class lacks;
- bool is not an int, an int is one within +-MAX_INT, a float is finite (a JSON integer is
  taken as a float), a string has at most MAX_TEXT characters, a list or dict at most
  MAX_ITEMS entries, a Literal one of its values, a union the first alternative that fits.

The child's process may be hostile, so the parent decodes every frame it reads before any rule
looks at it; whatever the object holds, decode returns a frame or raises framing.ForgedFrame
naming the kind and the field (the parent's malformed-frame rejection). The checks walk the
dataclass's types, never the data's own nesting: a value nested deeper than its type is refused
at the first level that does not fit.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar

from judge.harness.common.framing import ForgedFrame

MAX_INT = 1 << 53  # every integer of a frame (counts, indices, byte sizes) is far inside this
MAX_ITEMS = 1 << 16  # a timing's times (3000 calls at most) or a kernel list are far inside this
MAX_TEXT = 1 << 20  # a frame's header is at most 1 MiB (framing.MAX_HEADER_BYTES)

Phase = Literal["", "check", "warmup", "timed", "profile"]


@dataclass(frozen=True)
class Frame:
    kind: ClassVar[str] = ""
    # Whether the frame is followed by a blob (framing.py adds "blob": N to its header).
    BLOB: ClassVar[bool] = False


# -- child to parent (fd 4) -------------------------------------------------------------------


@dataclass(frozen=True)
class Warm(Frame):
    """The process is warmed up and waits for its job: seconds per warm-up step."""

    kind: ClassVar[str] = "warm"
    warmed: dict[str, float | None]


@dataclass(frozen=True)
class Ready(Frame):
    """The job was read: the mode's time limit starts."""

    kind: ClassVar[str] = "ready"


@dataclass(frozen=True)
class Stage(Frame):
    kind: ClassVar[str] = "stage"
    stage: Literal["testing", "benchmarking", "profiling"]
    done: int
    total: int
    detail: str


@dataclass(frozen=True)
class Output(Frame):
    """One output tensor's raw bytes (the blob) of a case or a shape's input set ("own" memory)."""

    kind: ClassVar[str] = "output"
    BLOB: ClassVar[bool] = True
    name: str
    set: int = 0
    case: int | None = None
    shape: int | None = None


@dataclass(frozen=True)
class Checked(Frame):
    """A call's outputs were all sent ("own" memory); seed: the final timed call's input seed number."""

    kind: ClassVar[str] = "checked"
    set: int
    checksums: list[str]
    returned: bool
    case: int | None = None
    shape: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class Kernels(Frame):
    """The kernels one call launched: (name, microseconds) each."""

    kind: ClassVar[str] = "kernels"
    shape: int
    names: list[tuple[str, float]]


@dataclass(frozen=True)
class Pool(Frame):
    kind: ClassVar[str] = "pool"
    shape: int
    size: int
    flush_bytes: int


@dataclass(frozen=True)
class Call(Frame):
    """A request for a call's memory (parent-owned memory); answered by a Go."""

    kind: ClassVar[str] = "call"
    case: int | None = None
    shape: int | None = None
    set: int | None = None
    phase: Phase = ""
    batch: bool = False  # timed calls: as many as the parent's go names
    calibration: bool = False  # the judge's own call, before the submission is loaded


@dataclass(frozen=True)
class Called(Frame):
    """A call on parent-owned memory is done: its claimed time (us: one call's, or per call of
    a batch, whose sets are `sets`), and in calibration the CPU time the calls used."""

    kind: ClassVar[str] = "called"
    case: int | None = None
    shape: int | None = None
    set: int | None = None
    sets: list[int] | None = None
    phase: Phase = ""
    us: float | list[float] | None = None
    returned: bool = False
    calibration: bool = False
    cpu_us: float | None = None


@dataclass(frozen=True)
class TimingStart(Frame):
    kind: ClassVar[str] = "timing_start"
    shape: int


@dataclass(frozen=True)
class Times(Frame):
    """One timing of a shape; seeds and warmup_seeds where the child made its own inputs,
    drain_detail in a measurement run (TimingPolicy.drain_detail)."""

    kind: ClassVar[str] = "times"
    shape: int
    times_us: list[float]
    sets: list[int]
    drains_us: list[float]
    warmup_us: list[float]
    stop_reason: str
    cover_us: float
    seeds: list[int] | None = None
    warmup_seeds: list[int] | None = None
    drain_detail: list[list[float]] | None = None


@dataclass(frozen=True)
class Await(Frame):
    """The child blocks until the parent's Go."""

    kind: ClassVar[str] = "await"


@dataclass(frozen=True)
class Violation(Frame):
    """A contract rule the child watches was broken (rejected)."""

    kind: ClassVar[str] = "violation"
    rule: str
    message: str


@dataclass(frozen=True)
class Error(Frame):
    """A compile, runtime, memory or internal error; the verdict it names."""

    kind: ClassVar[str] = "error"
    verdict: str
    message: str


@dataclass(frozen=True)
class Done(Frame):
    kind: ClassVar[str] = "done"


@dataclass(frozen=True)
class Compiling(Frame):
    """Triton starts compiling a kernel (named with its constexpr values)."""

    kind: ClassVar[str] = "compiling"
    what: str


@dataclass(frozen=True)
class Compiled(Frame):
    kind: ClassVar[str] = "compiled"


FromChild = (
    Warm
    | Ready
    | Stage
    | Output
    | Checked
    | Kernels
    | Pool
    | Call
    | Called
    | TimingStart
    | Times
    | Await
    | Violation
    | Error
    | Done
    | Compiling
    | Compiled
)

FROM_CHILD: dict[str, type[Frame]] = {cls.kind: cls for cls in typing.get_args(FromChild)}


# -- parent to child (fd 3): the answers --------------------------------------------------------


@dataclass(frozen=True)
class RegionSlot:
    """Where one tensor lies in a region (common/shared_memory.py's Slot, as a go carries it)."""

    name: str
    dtype: str
    shape: list[int]
    offset: int


@dataclass(frozen=True)
class Grant:
    """One call's memory: its input set and region; the first time a region is named, its size
    and layout too (its fd arrives on the region socket just before the go)."""

    set: int
    region: str
    size: int | None = None
    slots: list[RegionSlot] | None = None


@dataclass(frozen=True)
class Go(Frame):
    """The parent's answer to an Await or a Call: go on or stop; after a shape's timing, maybe
    time it again (retime); to a Call, the memory of its call or of each call of its batch."""

    kind: ClassVar[str] = "go"
    go: bool
    retime: bool = False
    calls: list[Grant] | None = None


TO_CHILD: dict[str, type[Go]] = {Go.kind: Go}


# -- the encoder and the decoder --------------------------------------------------------------


def encode(frame: Frame) -> dict[str, Any]:
    """The JSON object of a frame: its kind, then every field that is not None."""
    return {"kind": frame.kind, **_encode_fields(frame)}


def _encode_fields(item: Any) -> dict[str, Any]:
    out = {}
    for name in _field_names(type(item)):
        value = getattr(item, name)
        if value is not None:
            out[name] = value if type(value) in _SCALARS else _encode_value(value)
    return out


# The child encodes a frame between a timed batch's last call and the parent's clock reading
# its report: kept to a few microseconds (field names looked up once per class, scalars as is).
_SCALARS = frozenset({bool, int, float, str})
_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    if cls not in _NAMES:
        _NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return _NAMES[cls]


def _encode_value(value: Any) -> Any:
    if type(value) in _SCALARS or value is None:
        return value
    if isinstance(value, list | tuple):
        return [v if type(v) in _SCALARS else _encode_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode_value(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _encode_fields(value)
    return value


F = TypeVar("F", bound=Frame)


def decode(obj: object) -> FromChild:
    """A frame the child sent, typed; ForgedFrame naming the field for anything else."""
    return typing.cast(FromChild, decode_as(obj, FROM_CHILD))


def decode_answer(obj: object) -> Go:
    """The parent's answer, typed (the child reads it); ForgedFrame naming the field otherwise."""
    return decode_as(obj, TO_CHILD)


def decode_as(obj: object, kinds: dict[str, type[F]]) -> F:
    """The frame of one of `kinds` that `obj` (a frame's JSON object) holds."""
    if type(obj) is not dict:
        raise ForgedFrame(f"a frame must be a JSON object, got {_shown(obj)}")
    kind = obj.get("kind")
    cls = kinds.get(kind) if type(kind) is str else None
    if cls is None:
        raise ForgedFrame(f"unknown frame kind {_shown(kind)}")
    fields = {k: v for k, v in obj.items() if k != "kind"}
    if ("blob" in fields) != cls.BLOB:
        raise ForgedFrame(f"{kind} frame: {'its blob is missing' if cls.BLOB else 'carries a blob'}")
    fields.pop("blob", None)  # its size was checked by framing.read_frame
    return _dataclass(cls, fields, f"{kind} frame", top=True)


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """A dataclass's fields and their types (evaluated once per class)."""
    if cls not in _HINTS:
        names = {f.name for f in dataclasses.fields(cls)}
        _HINTS[cls] = {name: hint for name, hint in typing.get_type_hints(cls).items() if name in names}
    return _HINTS[cls]


def _dataclass(cls: type[Any], obj: object, where: str, top: bool = False) -> Any:
    """The dataclass `cls` from a JSON object; `where` names it in errors ("go frame", or a
    field's path inside one: "go frame: calls[0]")."""
    if type(obj) is not dict:
        raise _wrong(where, "an object", obj)
    hints = _hints(cls)
    for key in obj:
        if key not in hints:
            raise ForgedFrame(f"{where}: unknown field {_shown(key)}")
    values = {}
    for f in dataclasses.fields(cls):
        if f.name in obj:
            path = f"{where}: {f.name}" if top else f"{where}.{f.name}"
            values[f.name] = _value(hints[f.name], obj[f.name], path)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ForgedFrame(f"{where}: missing field {f.name}")
    return cls(**values)


def _value(hint: Any, value: object, where: str) -> Any:
    """`value` checked against the type `hint` (and converted: a list to a tuple, an int to a float)."""
    origin = typing.get_origin(hint)
    if origin is Literal:
        for option in typing.get_args(hint):
            if type(value) is type(option) and value == option:
                return value
        raise _wrong(where, "one of " + ", ".join(repr(o) for o in typing.get_args(hint)), value)
    if origin in (typing.Union, types.UnionType):
        closest = None  # the error of the alternative of the value's own JSON type: the precise one
        for alternative in typing.get_args(hint):
            try:
                return _value(alternative, value, where)
            except ForgedFrame as exc:
                if closest is None and _json_type(alternative) is type(value):
                    closest = exc
        raise closest or _wrong(where, _name(hint), value)
    if hint is type(None):
        if value is None:
            return None
        raise _wrong(where, "null", value)
    if hint is bool:
        if type(value) is bool:
            return value
        raise _wrong(where, "a bool", value)
    if hint is int:
        if type(value) is int and -MAX_INT <= value <= MAX_INT:
            return value
        raise _wrong(where, "an int within +-2**53", value)
    if hint is float:
        if (type(value) is int and -MAX_INT <= value <= MAX_INT) or (type(value) is float and math.isfinite(value)):
            return float(value)
        raise _wrong(where, "a finite number", value)
    if hint is str:
        if type(value) is str and len(value) <= MAX_TEXT:
            return value
        raise _wrong(where, f"a string of at most {MAX_TEXT} characters", value)
    if origin is list or origin is tuple:
        args = typing.get_args(hint)
        if type(value) is not list or len(value) > MAX_ITEMS:
            raise _wrong(where, f"a list of at most {MAX_ITEMS} items", value)
        if origin is list:
            return [_value(args[0], item, f"{where}[{i}]") for i, item in enumerate(value)]
        if len(value) != len(args):
            raise _wrong(where, f"a list of {len(args)} items", value)
        return tuple(_value(arg, item, f"{where}[{i}]") for i, (arg, item) in enumerate(zip(args, value, strict=True)))
    if origin is dict:
        key_hint, item_hint = typing.get_args(hint)
        if type(value) is not dict or len(value) > MAX_ITEMS:
            raise _wrong(where, f"an object of at most {MAX_ITEMS} entries", value)
        return {
            _value(key_hint, key, f"{where} key"): _value(item_hint, item, f"{where}[{_shown(key)}]")
            for key, item in value.items()
        }
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass(hint, value, where)
    raise TypeError(f"frames.py cannot check a field of type {hint!r}")  # the judge's own bug


def within(value: int | None, name: str, low: int, high: int) -> int:
    """An index or count of a decoded frame within what the receiver's job allows (the bounds
    the types cannot know), else ForgedFrame."""
    if value is None or not low <= value <= high:
        raise ForgedFrame(f"{name} must be an int in {low}..{high}, got {value!r}")
    return value


def _wrong(where: str, wanted: str, value: object) -> ForgedFrame:
    return ForgedFrame(f"{where} must be {wanted}, got {_shown(value)}")


def _json_type(hint: Any) -> type | None:
    """The JSON type a value of `hint` arrives as (list for a list or a tuple, dict for a dict or a
    dataclass); None where more than one does (a float may arrive as an int)."""
    origin = typing.get_origin(hint)
    if origin in (list, tuple):
        return list
    if origin is dict or (isinstance(hint, type) and dataclasses.is_dataclass(hint)):
        return dict
    return hint if hint in (bool, int, str) else None


def _name(hint: Any) -> str:
    names = (
        "null" if a is type(None) else a.__name__ if isinstance(a, type) else str(a).replace(f"{__name__}.", "")
        for a in typing.get_args(hint)
    )
    return " | ".join(names)


def _shown(value: object) -> str:
    """A short description of a value of the child's: never its whole text (which may be huge,
    nested beyond what repr survives, or an int too long to print)."""
    if value is None or type(value) in (bool, float):
        return repr(value)
    if type(value) is int:
        return repr(value) if abs(value) < 10**18 else f"an int of {value.bit_length()} bits"
    if type(value) is str:
        return repr(value[:40]) + ("..." if len(value) > 40 else "")
    if type(value) in (list, dict):
        return f"a {'list' if type(value) is list else 'object'} of {len(value)} items"  # type: ignore[arg-type]
    return f"a {type(value).__name__}"
