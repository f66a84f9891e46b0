"""The boundaries of DESIGN.md section 1, enforced by scanning imports."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GPU_LIBRARIES = {"torch", "triton", "cupy", "numpy"}
WEB_ONLY = {"django", "gridstride", "ninja"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def python_files(*folders: str) -> list[Path]:
    return [p for folder in folders for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts]


def test_platform_has_no_init_that_would_shadow_the_stdlib_module() -> None:
    assert not (ROOT / "platform" / "__init__.py").exists()


def test_import_platform_gives_the_stdlib_module_with_the_source_root_on_the_path() -> None:
    code = "import sys; sys.path[:0] = ['platform', '.']; import platform, uuid; print(platform.system())"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip()


def test_judge_and_sandbox_never_import_the_web_side() -> None:
    offenders = {str(p.relative_to(ROOT)): imported_modules(p) & WEB_ONLY for p in python_files("judge", "sandbox")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_web_side_never_imports_gpu_libraries() -> None:
    offenders = {str(p.relative_to(ROOT)): imported_modules(p) & GPU_LIBRARIES for p in python_files("platform")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_web_side_imports_only_spec_and_protocol_from_the_judge() -> None:
    # judge.transports too: the kombu transports both sides use (kombu and judge.protocol only).
    allowed = {"judge.spec", "judge.protocol", "judge.transports"}
    offenders = []
    for path in python_files("platform"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("judge"):
                modules = [node.module] if node.module != "judge" else [f"judge.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names if a.name.startswith("judge")]
            offenders += [f"{path.relative_to(ROOT)}: {m}" for m in modules if m not in allowed]
    assert offenders == []


def test_spec_and_protocol_use_only_the_standard_library() -> None:
    stdlib = set(sys.stdlib_module_names) | {"judge", "__future__"}
    for name in ("spec.py", "protocol.py"):
        assert imported_modules(ROOT / "judge" / name) - stdlib == set(), name


def judge_imports(path: Path, package: str | None = None) -> set[str]:
    """Every judge module a file imports, at any depth (lazy imports inside functions too);
    relative imports are resolved against the file's package (by default, where it lies)."""
    if package is None:
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.update(f"{base}.{alias.name}" for alias in node.names)
            found.add(base)
    return {name for name in found if name == "judge" or name.startswith("judge.")}


def zone_offenders(zone: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in python_files(f"judge/harness/{zone}")
        for name in judge_imports(path)
        if name.startswith(forbidden)
    )


def test_the_child_never_imports_the_parent() -> None:
    assert zone_offenders("child", ("judge.harness.parent", "judge.cli", "judge.worker", "judge.host")) == []


def test_common_code_imports_neither_the_parent_nor_the_child() -> None:
    forbidden = ("judge.harness.parent", "judge.harness.child", "judge.cli", "judge.worker", "judge.host")
    assert zone_offenders("common", forbidden) == []
    assert zone_offenders("languages", forbidden) == []


def test_no_harness_code_branches_on_a_language_name() -> None:
    """What differs between languages is declared in judge/harness/languages/ (one module each);
    the parent and the child ask those declarations, so adding a language touches one module."""
    branch = re.compile(r"language\s*(?:==|!=)\s*['\"]|language\s+(?:not\s+)?in\s*\(|\[\s*['\"]language['\"]\s*\]\s*==")
    offenders = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in python_files("judge/harness")
        if "languages" not in path.parts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if branch.search(line)
    ]
    assert offenders == []


def test_the_import_scan_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from ..parent import judging\n    import judge.harness.parent.launch\n")
    found = judge_imports(probe, package="judge.harness.child")
    assert {"judge.harness.parent.judging", "judge.harness.parent.launch"} <= found
