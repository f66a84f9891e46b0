"""Typed frames (judge/harness/common/frames.py): every kind round-trips (the child's frames
and the parent's answers), a malformed frame is refused naming its field, and no object whatever makes the decoder raise anything but
ForgedFrame (the parent's malformed-frame rejection). No judging here: each test is cheap."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from typing import Any

import pytest

from judge.harness.common import frames
from judge.harness.common.framing import ForgedFrame

# One valid frame of every kind the child sends, with optional fields both set and left out.
VALID: list[frames.Frame] = [
    frames.Warm(warmed={"start-up": 1.25, "triton": None}),
    frames.Ready(),
    frames.Stage(stage="testing", done=0, total=3, detail="n1"),
    frames.Output(name="c", case=1),
    frames.Output(name="c", set=2, shape=0),
    frames.Checked(set=0, checksums=["ab12", "cd34"], returned=False, case=2),
    frames.Checked(set=3, checksums=[], returned=True, shape=1, seed=17),
    frames.Kernels(shape=0, names=[("add_kernel", 12.5), ("fill", 0.0)]),
    frames.Pool(shape=0, size=4, flush_bytes=1 << 27),
    frames.Call(case=0),
    frames.Call(shape=0, set=1, phase="warmup", calibration=True),
    frames.Call(shape=1, phase="timed", batch=True),
    frames.Called(case=0, returned=True),
    frames.Called(shape=0, set=2, phase="warmup", us=41.5, calibration=True, cpu_us=40.0),
    frames.Called(shape=0, sets=[0, 1, 2], phase="timed", us=[10.0, 11.0, 12.5]),
    frames.TimingStart(shape=2),
    frames.Times(
        shape=0,
        times_us=[10.0, 11.5],
        sets=[0, 1],
        drains_us=[0.0, 0.0],
        warmup_us=[20.0],
        stop_reason="count",
        cover_us=0.0,
    ),
    frames.Times(
        shape=1,
        times_us=[3.0],
        sets=[0],
        drains_us=[5.0],
        warmup_us=[],
        stop_reason="ci",
        cover_us=12.0,
        seeds=[4],
        warmup_seeds=[1, 2, 3],
        drain_detail=[[5.0, 1.0, 0.0, 2.0, 4.0, 1.7e9]],
    ),
    frames.Await(),
    frames.Violation(rule="global-state", message="the submission changed torch.get_default_dtype()"),
    frames.Error(verdict="runtime_error", message="error while testing case 'n1':\nValueError: x"),
    frames.Done(),
    frames.Compiling(what="softmax_kernel[BLOCK=1024, num_warps=4, num_stages=3]"),
    frames.Compiled(),
]


# The parent's answers: a stop, a retime, a call's memory (a region named for the first time,
# with its layout) and a batch's (regions named before).
ANSWERS: list[frames.Go] = [
    frames.Go(go=False),
    frames.Go(go=True, retime=True),
    frames.Go(
        go=True,
        calls=[
            frames.Grant(
                set=0,
                region="case:0",
                size=8192,
                slots=[
                    frames.RegionSlot(name="a", dtype="float32", shape=[1024], offset=0),
                    frames.RegionSlot(name="c", dtype="float32", shape=[1024], offset=4096),
                ],
            )
        ],
    ),
    frames.Go(go=True, calls=[frames.Grant(set=1, region="shape:0:1"), frames.Grant(set=2, region="shape:0:2")]),
]


def wire(frame: frames.Frame) -> dict[str, Any]:
    """The frame's JSON object as the parent reads it: through JSON, with framing's blob size."""
    obj = json.loads(json.dumps(frames.encode(frame)))
    if frame.BLOB:
        obj["blob"] = 8
    return obj


def test_every_kind_the_child_sends_has_a_valid_example() -> None:
    assert {f.kind for f in VALID} == set(frames.FROM_CHILD)


@pytest.mark.parametrize("frame", VALID, ids=lambda f: f.kind)
def test_a_frame_comes_back_as_it_was_sent(frame: frames.Frame) -> None:
    assert frames.decode(wire(frame)) == frame


@pytest.mark.parametrize("answer", ANSWERS, ids=range(len(ANSWERS)))
def test_an_answer_comes_back_as_the_parent_sent_it(answer: frames.Go) -> None:
    assert frames.decode_answer(wire(answer)) == answer


def test_a_frame_of_one_direction_is_refused_in_the_other() -> None:
    with pytest.raises(ForgedFrame, match="unknown frame kind 'go'"):
        frames.decode(wire(frames.Go(go=True)))
    with pytest.raises(ForgedFrame, match="unknown frame kind 'await'"):
        frames.decode_answer(wire(frames.Await()))


def test_a_malformed_answer_is_refused_naming_the_nested_field() -> None:
    obj = wire(ANSWERS[2])
    obj["calls"][0]["slots"][1]["shape"] = ["1024"]
    with pytest.raises(ForgedFrame, match=r"go frame: calls\[0\]\.slots\[1\]\.shape\[0\] must be an int"):
        frames.decode_answer(obj)
    obj = wire(ANSWERS[3])
    del obj["calls"][1]["region"]
    with pytest.raises(ForgedFrame, match=r"go frame: calls\[1\]: missing field region"):
        frames.decode_answer(obj)


def test_a_frame_is_encoded_with_its_kind_and_without_the_fields_it_leaves_out() -> None:
    assert frames.encode(frames.Output(name="c", case=1)) == {"kind": "output", "name": "c", "set": 0, "case": 1}
    assert frames.encode(frames.Kernels(shape=0, names=[("k", 1.0)])) == {
        "kind": "kernels",
        "shape": 0,
        "names": [["k", 1.0]],
    }


def test_a_json_integer_is_taken_where_a_float_belongs() -> None:
    frame = frames.decode({"kind": "called", "case": 0, "phase": "warmup", "us": 12})
    assert isinstance(frame, frames.Called) and frame.us == 12.0 and type(frame.us) is float


TIMES = wire(VALID[16])

# (what is wrong, the frame's JSON object, what the error must name)
MALFORMED: list[tuple[str, Any, str]] = [
    ("not an object", [1, 2], "JSON object"),
    ("no kind", {"shape": 0}, "unknown frame kind None"),
    ("an unknown kind", {"kind": "boom"}, "unknown frame kind 'boom'"),
    ("a kind that is not a string", {"kind": [1]}, "unknown frame kind a list"),
    ("a kind the parent sends", {"kind": "go", "go": True}, "unknown frame kind 'go'"),
    ("a missing field", {"kind": "pool", "shape": 0, "size": 1}, "pool frame: missing field flush_bytes"),
    ("an extra field", {"kind": "done", "verdict": "accepted"}, "done frame: unknown field 'verdict'"),
    ("a string for an int", {"kind": "stage", "stage": "testing", "done": "x", "total": 1, "detail": ""}, "done"),
    ("a bool for an int", {"kind": "timing_start", "shape": True}, "timing_start frame: shape"),
    ("a float for an int", {"kind": "timing_start", "shape": 0.0}, "timing_start frame: shape"),
    ("an int too large", {"kind": "timing_start", "shape": 1 << 64}, "timing_start frame: shape"),
    ("an int of 5000 digits", {"kind": "timing_start", "shape": 10**5000}, "bits"),
    ("a string for a list of floats", {**TIMES, "times_us": "1,2,3"}, "times frame: times_us"),
    ("NaN for a time", {**TIMES, "times_us": [1.0, float("nan")]}, "times frame: times_us[1]"),
    ("inf for a time", {**TIMES, "cover_us": float("inf")}, "times frame: cover_us"),
    ("-inf for a time", {**TIMES, "warmup_us": [float("-inf")]}, "times frame: warmup_us[0]"),
    ("a bool among floats", {**TIMES, "drains_us": [0.0, True]}, "times frame: drains_us[1]"),
    ("nested lists for floats", {**TIMES, "times_us": [[1.0]]}, "times frame: times_us[0]"),
    ("an oversized list", {**TIMES, "sets": [0] * (frames.MAX_ITEMS + 1)}, "times frame: sets"),
    ("a stage the child never has", {"kind": "stage", "stage": "x", "done": 0, "total": 1, "detail": ""}, "stage"),
    ("a phase the child never has", {"kind": "call", "shape": 0, "phase": "later"}, "call frame: phase"),
    ("a string for a bool", {"kind": "called", "case": 0, "returned": "yes"}, "called frame: returned"),
    ("a string for a time", {"kind": "called", "case": 0, "us": "fast"}, "called frame: us"),
    ("a kernel list of strings", {"kind": "kernels", "shape": 0, "names": ["k"]}, "kernels frame: names[0]"),
    ("a kernel of three items", {"kind": "kernels", "shape": 0, "names": [["k", 1.0, 2]]}, "names[0]"),
    ("a kernel time that is null", {"kind": "kernels", "shape": 0, "names": [["k", None]]}, "names[0][1]"),
    ("checksums that are numbers", {"kind": "checked", "set": 0, "checksums": [1], "returned": False}, "checksums[0]"),
    ("warm seconds as text", {"kind": "warm", "warmed": {"a": "1"}}, "warm frame: warmed['a']"),
    ("an output without its blob", {"kind": "output", "name": "c"}, "output frame: its blob is missing"),
    ("a blob on another kind", {"kind": "done", "blob": 4}, "done frame: carries a blob"),
    ("a text that is a number", {"kind": "compiling", "what": 3}, "compiling frame: what"),
]


@pytest.mark.parametrize(("case", "obj", "named"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_frame_is_refused_naming_what_is_wrong(case: str, obj: Any, named: str) -> None:
    with pytest.raises(ForgedFrame) as caught:
        frames.decode(obj)
    assert named in str(caught.value), (case, str(caught.value))
    assert len(str(caught.value)) < 300  # never the child's whole value


def test_deep_nesting_is_refused_without_recursing_into_it() -> None:
    deep: Any = 1.0
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ForgedFrame, match="times_us"):
        frames.decode({**TIMES, "times_us": deep})
    with pytest.raises(ForgedFrame, match="warmed"):
        frames.decode({"kind": "warm", "warmed": {"a": deep}})


def test_a_bound_the_types_cannot_know_is_the_receivers() -> None:
    assert frames.within(3, "shape", 0, 3) == 3
    for value in (None, -1, 4):
        with pytest.raises(ForgedFrame, match=r"shape must be an int in 0\.\.3"):
            frames.within(value, "shape", 0, 3)


# -- random mutations: a frame or ForgedFrame, never another exception --------------------------

JUNK: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1 << 60,
    10**400,
    0.5,
    float("nan"),
    float("inf"),
    -float("inf"),
    1e308,
    "",
    "x" * 100,
    "\udcff",
    [],
    [1.0, "a"],
    [[[[[]]]]],
    {},
    {"kind": "done"},
    {1: 2},
    b"bytes",
    object(),
]


def junk(rng: random.Random) -> Any:
    return copy.deepcopy(rng.choice(JUNK))


def mutate(obj: Any, rng: random.Random) -> Any:
    """One random change somewhere in a frame's JSON object (or, at times, in a nested value)."""
    if isinstance(obj, dict) and obj and rng.random() < 0.8:
        key = rng.choice(list(obj))
        action = rng.randrange(4)
        if action == 0:
            del obj[key]
        elif action == 1:
            obj[rng.choice([f"{key}_", "blob", "kind", 7])] = junk(rng)
        elif action == 2:
            obj[key] = mutate(obj[key], rng)
        else:
            obj[key] = junk(rng)
        return obj
    if isinstance(obj, list) and obj and rng.random() < 0.8:
        i = rng.randrange(len(obj))
        if rng.random() < 0.3:
            obj.append(junk(rng))
        else:
            obj[i] = mutate(obj[i], rng)
        return obj
    return junk(rng)


def test_random_mutations_of_valid_frames_decode_or_are_refused_with_the_one_error() -> None:
    rng = random.Random(20261203)
    decoded = refused = 0
    examples: list[tuple[frames.Frame, Any]] = [(f, frames.decode) for f in VALID]
    examples += [(a, frames.decode_answer) for a in ANSWERS]
    for i in range(20_000):
        example, decode = examples[i % len(examples)]
        obj = wire(example)
        for _ in range(rng.randrange(1, 4)):
            obj = mutate(obj, rng)
        try:
            frame = decode(obj)
        except ForgedFrame:
            refused += 1
        else:
            decoded += 1
            assert type(frame) in (frames.Go, *frames.FROM_CHILD.values())
    assert decoded > 100 and refused > 10_000, (decoded, refused)


def test_the_examples_set_every_field_of_every_kind() -> None:
    # The round trip above then covers every field's type: a type the decoder does not know
    # would be the judge's own bug, found here rather than by a child's frame.
    unset = {
        (cls.kind, field.name)
        for cls in frames.FROM_CHILD.values()
        for field in dataclasses.fields(cls)
        if all(getattr(f, field.name) is None for f in VALID if type(f) is cls)
    }
    assert unset == set()
