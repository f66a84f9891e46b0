"""The gridstride CLI against a live site: login with a token, init a starter, submit and follow
the judging live, status, leaderboard. A stand-in judge (a thread calling the pipeline's actions)
answers every published job, the way a judge worker's messages would."""

from __future__ import annotations

import io
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from django.db import close_old_connections
from gridstride.api.actions import issue_token, revoke_token
from gridstride.catalog.actions import sync_problems
from gridstride.catalog.models import Problem
from site_fixtures import make_user, report, softmax_shapes

from judge.protocol import Progress, Report

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cli"))
from gridstride_cli import main as cli

pytestmark = pytest.mark.django_db(transaction=True)


def fake_judge(job: dict[str, Any], verdict: str) -> None:
    """Walk through the stages with pauses (so the CLI sees them), then report."""
    from gridstride.submissions import actions

    try:
        sid, attempt = job["submission_id"], job["attempt"]
        steps = [("compiling", 0, 0), ("testing", 0, 3), ("testing", 2, 3)]
        if job["mode"] == "benchmark":
            steps += [("benchmarking", 0, 2), ("benchmarking", 1, 2)]
        for seq, (stage, done, total) in enumerate(steps, start=1):
            time.sleep(0.35)
            actions.record_progress(Progress(sid, attempt, stage, done=done, total=total), seq=seq)
        time.sleep(0.3)
        data = report(
            verdict, mode=job["mode"], ranked=False, shapes=softmax_shapes(400.0) if verdict == "accepted" else []
        )
        data.update(submission_id=sid, attempt=attempt, language=job["language"])
        assert actions.record_report(Report.from_dict(json.loads(json.dumps(data))))
    finally:
        close_old_connections()


@pytest.fixture
def site(live_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    sync_problems()
    assert Problem.objects.filter(slug="softmax").exists()
    verdict = {"value": "accepted"}
    threads: list[threading.Thread] = []

    def send_job(job: dict[str, Any], **kw: Any) -> None:
        t = threading.Thread(target=fake_judge, args=(job, verdict["value"]), daemon=True)
        t.start()
        threads.append(t)

    monkeypatch.setattr("gridstride.submissions.broker.send_job", send_job)
    monkeypatch.setenv("GRIDSTRIDE_CONFIG", str(tmp_path / "config" / "config.json"))
    monkeypatch.setattr("gridstride_cli.main.POLL_S", 0.1)
    user = make_user("cli-user")
    row, token = issue_token(user, "cli")
    yield {"url": live_server.url, "token": token, "row": row, "user": user, "tmp": tmp_path, "verdict": verdict}
    for t in threads:
        t.join(timeout=10)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


def test_login_saves_the_token_privately_and_checks_it(site: dict[str, Any]) -> None:
    code, out = run("--server", site["url"], "login", "--token", site["token"])
    assert code == 0 and "as cli-user" in out
    saved = site["tmp"] / "config" / "config.json"
    assert json.loads(saved.read_text()) == {"server": site["url"], "token": site["token"]}
    assert saved.stat().st_mode & 0o777 == 0o600


def test_a_wrong_or_revoked_token_is_refused_with_a_hint(
    site: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run("login", "--token", "gs_wrong", "--server", site["url"])
    assert code == 2 and "refused the token" in capsys.readouterr().err
    assert not (site["tmp"] / "config" / "config.json").exists()
    run("login", "--token", site["token"], "--server", site["url"])
    revoke_token(site["user"], site["row"].pk)
    kernel = site["tmp"] / "softmax.py"
    kernel.write_text("import triton\n")
    code, _ = run("submit", str(kernel))
    assert code == 2 and "revoked" in capsys.readouterr().err


def test_init_writes_the_starter_and_will_not_overwrite(site: dict[str, Any]) -> None:
    target = site["tmp"] / "softmax.py"
    code, out = run("--server", site["url"], "init", "softmax", "--language", "triton", "--output", str(target))
    assert code == 0 and "wrote the triton starter" in out
    assert target.read_text() == Problem.objects.get(slug="softmax").current_version.starters["triton"]
    with pytest.raises(SystemExit, match="exists"):
        run("--server", site["url"], "init", "softmax", "--language", "triton", "--output", str(target))


def test_submit_follows_the_stages_live_then_prints_the_report(site: dict[str, Any]) -> None:
    run("login", "--token", site["token"], "--server", site["url"])
    kernel = site["tmp"] / "softmax.py"
    kernel.write_text("import triton\n\ndef solve(x, y, m, n):\n    pass\n")
    code, out = run("submit", str(kernel), "--gpu", "cpu")
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("submit softmax (triton) as ")
    stages = [line.split("] ", 1)[1] for line in lines if line.startswith("[")]
    assert stages[0].startswith("queued") or stages[0] == "compiling"
    assert "checking case 1/3" in stages or "checking case 3/3" in stages
    assert "benchmarking shape 1/2" in stages or "benchmarking shape 2/2" in stages
    assert stages[-1] == "Accepted"
    assert "(unranked: CPU interpreter)" in out
    assert "4096x16384" in out and "% SOL" in out and "score 56.57 ms" in out
    submission_id = lines[0].rsplit(" ", 1)[1]

    code, status = run("status", submission_id)
    assert code == 0 and "Accepted" in status and "score" in status

    code, board = run("leaderboard", "softmax", "--gpu", "cpu")
    assert code == 0
    assert "unranked practice runs" in board and "cli-user (you)" in board


def test_a_wrong_answer_exits_non_zero_with_the_mismatches(site: dict[str, Any]) -> None:
    run("login", "--token", site["token"], "--server", site["url"])
    site["verdict"]["value"] = "wrong_answer"
    kernel = site["tmp"] / "k.cu"
    kernel.write_text('extern "C" void solve() {}\n')
    code, out = run("submit", str(kernel), "--problem", "softmax", "--mode", "run", "--gpu", "cpu")
    assert code == 1 and "Wrong answer" in out and "(cuda)" in out


def test_the_language_is_guessed_or_asked_for(site: dict[str, Any], tmp_path: Path) -> None:
    assert cli.guess_language(Path("a.cu"), "") == "cuda"
    assert cli.guess_language(Path("a.py"), "import triton\n") == "triton"
    assert cli.guess_language(Path("a.py"), "import cupy as cp\n") == "cupy"
    assert cli.guess_language(Path("a.py"), "import torch\n") == "pytorch"
    run("login", "--token", site["token"], "--server", site["url"])
    plain = tmp_path / "softmax.py"
    plain.write_text("x = 1\n")
    with pytest.raises(SystemExit, match="--language"):
        run("submit", str(plain))


def api_json(site: dict[str, Any], path: str) -> Any:
    import urllib.request

    req = urllib.request.Request(f"{site['url']}/api{path}", headers={"Authorization": f"Bearer {site['token']}"})
    with urllib.request.urlopen(req) as response:
        return json.loads(response.read())


def submitted(site: dict[str, Any]) -> tuple[str, str]:
    run("login", "--token", site["token"], "--server", site["url"])
    kernel = site["tmp"] / "softmax.py"
    kernel.write_text("import triton\n\ndef solve(x, y, m, n):\n    pass\n")
    code, out = run("submit", str(kernel), "--gpu", "cpu")
    assert code == 0, out
    return out.splitlines()[0].rsplit(" ", 1)[1], out


def test_the_report_prints_the_apis_figures_and_computes_none(site: dict[str, Any]) -> None:
    submission_id, out = submitted(site)
    figures = api_json(site, f"/submissions/{submission_id}")["figures"]
    assert figures["score"] == "56.57 ms" and f"score {figures['score']}" in out
    for shape in figures["shapes"]:
        row = next(line for line in out.splitlines() if line.startswith(shape["name"]))
        for key in ("median", "ci", "n", "bandwidth", "compute", "sol", "speedup"):
            assert shape[key] in row, (key, shape[key], row)
    # The units follow the magnitude (a 200 ms softmax moves MB/s, not "0.00 GB/s").
    assert figures["shapes"][0]["bandwidth"].endswith((" GB/s", " MB/s", " TB/s"))
    assert "0.00 GB/s" not in out and "0 FLOP/s" not in out
    assert figures["summary"] in out and "geometric mean of 2 shapes" in figures["summary"]


def test_global_options_are_taken_after_the_command_too(site: dict[str, Any]) -> None:
    run("login", "--token", site["token"], "--server", site["url"])
    saved = site["tmp"] / "config" / "config.json"
    saved.write_text(json.dumps({"server": "http://127.0.0.1:9", "token": site["token"]}))
    code, out = run("problems", "--server", site["url"])
    assert code == 0 and "softmax" in out
    kernel = site["tmp"] / "softmax.py"
    kernel.write_text("import triton\n")
    code, out = run("submit", str(kernel), "--gpu", "cpu", "--no-wait", "--server", site["url"])
    assert code == 0 and out.startswith("submit softmax (triton) as ")


def test_a_unique_prefix_of_an_id_names_the_submission(
    site: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    submission_id, _ = submitted(site)
    code, out = run("status", submission_id[:8])
    assert code == 0 and "Accepted" in out and submission_id in out
    code, out = run("status", submission_id.replace("-", "")[:13])
    assert code == 0 and "Accepted" in out
    capsys.readouterr()
    code, _ = run("status", "ab")
    err = capsys.readouterr().err
    assert code == 2 and "at least 4" in err and err.count("\n") == 1
    code, _ = run("status", "ffffffff" if not submission_id.startswith("f") else "00000000")
    assert code == 2 and "None of your submissions" in capsys.readouterr().err


def test_api_errors_are_one_readable_line_with_a_non_zero_exit(
    site: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run("--server", site["url"], "init", "no_such_problem", "--language", "triton")
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "No problem 'no_such_problem'" in err and "Not Found" not in err
    code, _ = run("--server", site["url"], "leaderboard", "no_such_problem")
    assert code == 2 and "No problem 'no_such_problem'" in capsys.readouterr().err


def test_counts_are_pluralized_and_problems_come_in_learning_order(site: dict[str, Any]) -> None:
    from judge.spec import TRACKS

    submitted(site)
    # The board's row is written when the verdict's signal runs, just after the CLI saw it.
    for _ in range(50):
        code, board = run("leaderboard", "softmax", "--gpu", "cpu")
        if ": 0 entries" not in board:
            break
        time.sleep(0.1)
    assert code == 0 and ": 1 entry\n" in board and "1 entries" not in board
    assert "rank" not in board.splitlines()[1]  # an unranked board has no rank column
    code, out = run("problems")
    tracks = [line.split()[1] for line in out.splitlines()[2:]]
    assert tracks == sorted(tracks, key=TRACKS.index)
