"""The assessments' "similar to the project's solutions" signal (assessments/integrity.py): the
project's own solutions include every problem's ladder rungs, and a near-copy of a rung that is no
corpus file or expert (renamed, reordered, commented) scores high against it."""

from __future__ import annotations

import keyword
import re

import pytest
from gridstride.assessments.integrity import SIMILAR, project_solutions, similarity_signals

from judge import ladder as laddermod
from judge import spec as specmod

LADDERS = {lad.slug: lad for lad in laddermod.load_all_ladders()[0]}


@pytest.mark.parametrize("slug", sorted(LADDERS))
def test_the_project_solutions_of_a_problem_include_each_of_its_ladder_rungs_once(slug: str) -> None:
    labels = [label for label, _ in project_solutions(slug)]
    assert len(labels) == len(set(labels)), "a rung that is a corpus file or an expert is listed once"
    sources = dict(project_solutions(slug))
    for rung in LADDERS[slug].rungs:
        assert rung.path in labels
        assert sources[rung.path] == rung.source()
    problem = specmod.load(slug)
    for sol in problem.solutions:
        label = f"problems/{slug}/solutions/{sol.file}"
        assert (label in labels) == (sol.expect == "accepted")


def own_rungs() -> list[tuple[str, str]]:
    """(problem, rung path) of the rungs written for a ladder: in no corpus and no expert."""
    return [
        (slug, rung.path)
        for slug, lad in sorted(LADDERS.items())
        for rung in lad.rungs
        if f"/{slug}/ladder/" in rung.path
    ]


# Left as they are: keyword arguments of the APIs, solve, and names the fingerprint keeps because
# they are keywords or types in one of the languages (a C variable called `pass` or `half`).
KEPT = {"mask", "other", "eviction_policy", "dtype", "device", "axis", "num_warps", "solve", "half"}
KEPT |= set(keyword.kwlist)


def disguised(source: str) -> str:
    """What a candidate does to a copied kernel: the functions and variables it defines renamed,
    its kernels (top-level blocks with a Triton decorator or a CUDA qualifier) in reverse order, and
    comments of their own on many lines."""
    names = re.findall(r"\bdef (\w+)|^\s*(\w+) = ", source, re.M)
    names += re.findall(r"\b(?:void|float|int|uint4|long long)\s+(\w+)\s*[(=]", source)
    flat = {n for group in names for n in (group if isinstance(group, tuple) else (group,)) if n}
    for i, name in enumerate(sorted(flat - KEPT, key=len, reverse=True)):
        source = re.sub(rf"\b{name}\b", f"v{i}_{name[::-1]}", source)
    blocks = re.split(r"\n\n+(?=\S)", source)
    is_kernel = [b.startswith(("@triton.jit", "__global__", "__device__", "template")) for b in blocks]
    kernels = iter(reversed([b for b, k in zip(blocks, is_kernel, strict=True) if k]))
    source = "\n\n\n".join(next(kernels) if k else b for b, k in zip(blocks, is_kernel, strict=True))
    mark = "//" if "__global__" in source else "#"
    lines = source.splitlines()
    return "\n".join(
        line + (f"  {mark} my step {i}" if i % 3 == 0 and line.strip() else "") for i, line in enumerate(lines)
    )


@pytest.mark.parametrize(("slug", "path"), own_rungs(), ids=[p.rsplit("/", 1)[-1] for _, p in own_rungs()])
def test_a_near_copy_of_a_ladder_rung_is_a_high_similarity_signal(slug: str, path: str) -> None:
    references = {slug: project_solutions(slug)}
    source = dict(references[slug])[path]
    copy = disguised(source)
    assert copy != source
    problem = specmod.load(slug)
    starters = {slug: list(problem.starters.values())}
    found = similarity_signals({slug: copy}, {}, starters, references)
    scores = {s.other: s.score for s in found if s.kind == "reference"}
    assert path in scores, found
    # Highest (a rung that differs from the next by a constant, as transpose's padded tile does,
    # ties with it).
    assert scores[path] == max(scores.values()) and scores[path] >= 0.8 > SIMILAR, found


def test_the_hidden_problems_ladder_counts_too() -> None:
    labels = [label for label, _ in project_solutions("swiglu")]
    assert "problems/swiglu/ladder/1_two_kernels.py" in labels
    assert "reference_kernels/swiglu/expert_cuda.cu" in labels and "problems/swiglu/solutions/cuda_ok.cu" in labels
