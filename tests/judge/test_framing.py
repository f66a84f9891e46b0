"""The framed channel between parent and child: round trips, and forged frames refused."""

from __future__ import annotations

import io
import json
import struct

import pytest

from judge.harness.common.framing import ChannelClosed, FrameError, read_frame, write_frame


def frames(*items: tuple[dict, bytes | None]) -> io.BytesIO:
    buf = io.BytesIO()
    for header, blob in items:
        write_frame(buf, header, blob)
    buf.seek(0)
    return buf


def test_a_header_and_a_blob_come_back_as_they_were_sent() -> None:
    blob = bytes(range(256)) * 10
    buf = frames(({"kind": "output", "name": "c"}, blob), ({"kind": "done"}, None))
    header, got = read_frame(buf, max_blob=len(blob))
    assert header == {"kind": "output", "name": "c", "blob": len(blob)}
    assert bytes(got) == blob
    header, got = read_frame(buf)
    assert header == {"kind": "done"} and got is None
    with pytest.raises(ChannelClosed):
        read_frame(buf)


def test_a_memoryview_of_another_item_size_is_sent_as_its_bytes() -> None:
    import array

    values = array.array("f", [1.0, 2.0, 3.0])
    buf = frames(
        ({"kind": "output"}, memoryview(values)),
    )
    header, got = read_frame(buf, max_blob=100)
    assert header["blob"] == 12 and bytes(got) == values.tobytes()


def test_a_blob_larger_than_the_reader_allows_is_refused_before_it_is_read() -> None:
    buf = frames(({"kind": "output"}, b"x" * 1000))
    with pytest.raises(FrameError, match="exceeds"):
        read_frame(buf, max_blob=999)


def test_a_forged_huge_header_length_is_refused() -> None:
    buf = io.BytesIO(b"\xff\xff\xff\xff" + b"{}")
    with pytest.raises(FrameError, match="length"):
        read_frame(buf)


def test_a_zero_length_header_is_refused() -> None:
    with pytest.raises(FrameError):
        read_frame(io.BytesIO(struct.pack(">I", 0)))


@pytest.mark.parametrize("payload", [b"not json", b"[1, 2]", b'"text"', b"\xff\xfe"])
def test_a_header_that_is_not_a_json_object_is_refused(payload: bytes) -> None:
    with pytest.raises(FrameError):
        read_frame(io.BytesIO(struct.pack(">I", len(payload)) + payload))


@pytest.mark.parametrize("size", [-1, "12", 1.5, True])
def test_a_blob_size_that_is_not_a_natural_number_is_refused(size: object) -> None:
    payload = json.dumps({"kind": "output", "blob": size}).encode()
    with pytest.raises(FrameError, match="blob size"):
        read_frame(io.BytesIO(struct.pack(">I", len(payload)) + payload + b"abc"), max_blob=10)


def test_a_frame_cut_short_is_an_error_not_a_clean_end() -> None:
    whole = frames(({"kind": "output"}, b"abcdef")).getvalue()
    with pytest.raises(FrameError, match="closed after"):
        read_frame(io.BytesIO(whole[:-2]), max_blob=10)
    with pytest.raises(FrameError):
        read_frame(io.BytesIO(whole[:2]), max_blob=10)
