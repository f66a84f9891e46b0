"""gridstride: log in with an API token, fetch starters, submit and follow the judging, leaderboards."""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from gridstride_cli import __version__, config, render
from gridstride_cli.client import ApiError, Client

SUFFIX = {"triton": ".py", "pytorch": ".py", "cupy": ".py", "cuda": ".cu"}
POLL_S = 0.5


def _client(args: argparse.Namespace, *, token: bool = True) -> Client:
    cfg = config.load()
    server = args.server or cfg.get("server") or config.DEFAULT_SERVER
    tok = cfg.get("token") if token else None
    if token and not tok:
        raise SystemExit("gridstride: not logged in: run `gridstride login --token TOKEN --server URL`")
    return Client(server, tok)


def cmd_login(args: argparse.Namespace, out: TextIO) -> int:
    server = (args.server or config.load().get("server") or config.DEFAULT_SERVER).rstrip("/")
    me = Client(server, args.token).get("/me")
    where = config.save({"server": server, "token": args.token})
    out.write(f"logged in to {server} as {me['username']} (token saved in {where})\n")
    return 0


def cmd_logout(args: argparse.Namespace, out: TextIO) -> int:
    cfg = config.load()
    cfg.pop("token", None)
    config.save(cfg)
    out.write("token removed from this machine (revoke it on the site's Tokens page if it leaked)\n")
    return 0


def cmd_problems(args: argparse.Namespace, out: TextIO) -> int:
    rows = [
        [p["slug"], p["track"], p["difficulty"], ", ".join(p["languages"])]
        for p in _client(args, token=False).get("/problems")
    ]
    render.table(rows, ["problem", "track", "difficulty", "languages"], set(), out)
    return 0


def cmd_init(args: argparse.Namespace, out: TextIO) -> int:
    problem = _client(args, token=False).get(f"/problems/{args.slug}")
    if args.language not in problem["starters"]:
        raise SystemExit(f"gridstride: {args.slug} takes {', '.join(problem['languages'])}, not {args.language}")
    target = Path(args.output or f"{args.slug}{SUFFIX[args.language]}")
    if target.exists() and not args.force:
        raise SystemExit(f"gridstride: {target} exists; use --force to overwrite it")
    target.write_text(problem["starters"][args.language])
    out.write(f"wrote the {args.language} starter of {args.slug} to {target}\n")
    out.write(f"next: edit it, then `gridstride submit {target} --problem {args.slug} --language {args.language}`\n")
    return 0


def guess_language(path: Path, source: str) -> str | None:
    if path.suffix in (".cu", ".cuh"):
        return "cuda"
    if re.search(r"^\s*(import triton|from triton)", source, re.M):
        return "triton"
    if re.search(r"^\s*(import cupy|from cupy)", source, re.M):
        return "cupy"
    if re.search(r"^\s*(import torch|from torch)", source, re.M):
        return "pytorch"
    return None


def follow(client: Client, submission_id: str, out: TextIO) -> dict[str, Any]:
    """Poll until judging ends, showing the stage: rewritten in place on a terminal, one line per
    change otherwise (logs, CI)."""
    live = out.isatty()
    last = ""
    while True:
        status = client.get(f"/submissions/{submission_id}")
        line = render.stage_line(status)
        if live:
            out.write("\r\x1b[2K" + line)
            out.flush()
        elif line.split("] ", 1)[-1] != last:
            out.write(line + "\n")
            out.flush()
        last = line.split("] ", 1)[-1]
        if status.get("final"):
            if live:
                out.write("\n")
            return status  # type: ignore[no-any-return]
        time.sleep(POLL_S)


def cmd_submit(args: argparse.Namespace, out: TextIO) -> int:
    path = Path(args.file)
    try:
        source = path.read_text()
    except OSError as exc:
        raise SystemExit(f"gridstride: cannot read {path}: {exc.strerror}") from None
    language = args.language or guess_language(path, source)
    if language is None:
        raise SystemExit("gridstride: cannot tell the language from the file: pass --language triton|cuda|pytorch|cupy")
    problem = args.problem or path.stem
    client = _client(args)
    body = {"problem": problem, "language": language, "source": source, "mode": args.mode}
    if args.gpu:
        body["gpu"] = args.gpu
    created = client.post("/submissions", body)
    out.write(f"{args.mode} {problem} ({language}) as {created['id']}\n")
    out.write(f"{client.server}{created['url']}\n")
    if args.no_wait:
        return 0
    status = follow(client, created["id"], out)
    render.report(status, client.server, out)
    return 0 if status.get("verdict") == "accepted" else 1


def cmd_status(args: argparse.Namespace, out: TextIO) -> int:
    client = _client(args)
    # The site resolves a unique prefix of one of your ids; follow the full id it answers with.
    status = client.get(f"/submissions/{args.id}")
    if args.wait and not status.get("final"):
        status = follow(client, status["id"], out)
    if status.get("final"):
        render.report(status, client.server, out)
        return 0 if status.get("verdict") == "accepted" else 1
    out.write(render.stage_line(status) + "\n")
    return 0


def cmd_leaderboard(args: argparse.Namespace, out: TextIO) -> int:
    cfg = config.load()
    client = Client(args.server or cfg.get("server") or config.DEFAULT_SERVER, cfg.get("token"))
    query = f"?window={args.window}&limit={args.limit}"
    if args.gpu:
        query += f"&gpu={args.gpu}"
    if args.language:
        query += f"&language={args.language}"
    render.board(client.get(f"/leaderboards/{args.slug}{query}"), out)
    return 0


SERVER_HELP = "site URL (default: the one saved at login, else http://127.0.0.1:8000)"


def parser() -> argparse.ArgumentParser:
    # Global options are accepted before or after the command (`gridstride submit F --server URL`):
    # every subcommand shares them. SUPPRESS keeps an unset one from hiding the value given
    # before the command.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--server", default=argparse.SUPPRESS, help=SERVER_HELP)
    p = argparse.ArgumentParser(prog="gridstride", description="Submit GPU kernels to a Gridstride site.")
    p.add_argument("--version", action="version", version=f"gridstride {__version__}")
    p.add_argument("--server", default=None, help=SERVER_HELP)
    sub = p.add_subparsers(dest="command", required=True)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, parents=[common])

    s = command("login", help="save an API token (create one on the site's Tokens page)")
    s.add_argument("--token", required=True)
    s.set_defaults(run=cmd_login)

    s = command("logout", help="forget the saved token")
    s.set_defaults(run=cmd_logout)

    s = command("problems", help="list the problems")
    s.set_defaults(run=cmd_problems)

    s = command("init", help="write a problem's starter for a language")
    s.add_argument("slug")
    s.add_argument("--language", "-l", required=True, choices=sorted(SUFFIX))
    s.add_argument("--output", "-o", help="file to write (default: SLUG.py or SLUG.cu)")
    s.add_argument("--force", action="store_true", help="overwrite an existing file")
    s.set_defaults(run=cmd_init)

    s = command("submit", help="run or submit a file and follow the judging live")
    s.add_argument("file")
    s.add_argument("--problem", "-p", help="problem slug (default: the file's name without suffix)")
    s.add_argument("--language", "-l", choices=sorted(SUFFIX), help="default: guessed from the file")
    s.add_argument("--mode", "-m", choices=["run", "submit"], default="submit", help="run: correctness only")
    s.add_argument("--gpu", help="GPU model to judge on (default: the site's)")
    s.add_argument("--no-wait", action="store_true", help="print the submission id and return")
    s.set_defaults(run=cmd_submit)

    s = command("status", help="a submission's status or report")
    s.add_argument("id", help="the id, or a unique prefix of one of your own (at least 4 characters)")
    s.add_argument("--wait", action="store_true", help="follow it until judging ends")
    s.set_defaults(run=cmd_status)

    s = command("leaderboard", help="a problem's leaderboard")
    s.add_argument("slug")
    s.add_argument("--gpu", help="e.g. h200, or cpu for unranked practice runs")
    s.add_argument("--language", "-l", choices=sorted(SUFFIX))
    s.add_argument("--window", choices=["all", "30d", "7d"], default="all")
    s.add_argument("--limit", type=int, default=20)
    s.set_defaults(run=cmd_leaderboard)
    return p


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    args = parser().parse_args(argv)
    try:
        return int(args.run(args, out))
    except ApiError as exc:
        # One readable line, whatever the server sent.
        sys.stderr.write("gridstride: " + " ".join(exc.message.split()) + "\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("\ngridstride: stopped following; the judging goes on (see `gridstride status ID`)\n")
        return 130
