"""The benchmark input sets of one shape: no two calls see the same inputs."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import torch

from judge.harness.common.child_job import ShapeJob
from judge.harness.common.seeds import fresh_seed
from judge.harness.common.tensors import InputSample, checksum

if TYPE_CHECKING:
    from judge.harness.child.runner import Runner


class FreshSets:
    """No two calls of a benchmark shape see the same inputs.

    The pool's sets are reused in turn (memory allows a few), so a submission could remember
    each set's result, by address or by a fingerprint of a few sampled values, and replay it
    in microseconds. Instead a set that was used is regenerated in place, from the next seed of
    the shape's fresh sequence (seeds.fresh_seed), right before it is used again: outside the
    timed window, same addresses, new values. The parent checks that no seed came twice and
    recomputes the final call's inputs from its seed.
    """

    def __init__(self, runner: Runner, shape: ShapeJob, pool: list[list[torch.Tensor]]) -> None:
        self.runner = runner
        self.shape = shape
        self.pool = pool
        self.seed_of = list(range(len(pool)))  # the seed number each set holds now
        self.used = [False] * len(pool)
        self.next_index = len(shape.pool_seeds)  # fresh seed numbers follow the pool's
        self.seeds: list[int] = []  # per call, warm-up and timed
        self.attempt_from = 1  # this timing's first warm-up call ([0] is the checked call before it)
        self.timed_from = 0
        self.samples: list[list[InputSample]] = [[] for _ in pool]  # each set as handed to solve()
        device = pool[0][0].device if pool and pool[0] else torch.device("cpu")
        self.generator = torch.Generator(device=device)
        self.generator.manual_seed(random.SystemRandom().getrandbits(63))

    def seed(self, index: int) -> int:
        pool_seeds, key = self.shape.pool_seeds, self.shape.fresh_key
        if index < len(pool_seeds):
            return pool_seeds[index]
        assert key is not None  # "own" memory: every shape carries its fresh inputs' key
        return fresh_seed(key, index)

    def before_call(self, index: int) -> None:
        if self.used[index]:
            # Its previous call is over: solve() must have left the set as it was. Checked here,
            # outside the timed window and before fresh values erase the evidence, on a random
            # sample of each large input (check_unchanged checksums each set's last call whole).
            self.runner.check_inputs_sampled(self.samples[index], self.pool[index])
            made = self.runner.make_inputs(self.seed(self.next_index), self.shape.sizes, self.shape.shapes)
            for target, values in zip(self.pool[index], made, strict=True):
                target.copy_(values)
            del made
            self.seed_of[index] = self.next_index
            self.next_index += 1
        self.used[index] = True
        self.samples[index] = [InputSample.take(t, self.generator) for t in self.pool[index]]
        self.seeds.append(self.seed_of[index])

    def new_attempt(self) -> None:
        """A timing (warm-up and timed calls) starts: the first, or the shape timed again."""
        self.attempt_from = max(1, len(self.seeds))

    def timing_started(self) -> None:
        self.timed_from = len(self.seeds)

    def warmup_seeds(self) -> list[int]:
        return self.seeds[self.attempt_from : self.timed_from]

    def timed_seeds(self) -> list[int]:
        return self.seeds[self.timed_from :]

    def check_unchanged(self) -> None:
        """Every set still holds the inputs its seed gives (solve() wrote into none of them)."""
        for index, inputs in enumerate(self.pool):
            expected = self.runner.make_inputs(self.seed(self.seed_of[index]), self.shape.sizes, self.shape.shapes)
            self.runner.check_inputs_unchanged([checksum(t) for t in expected], [checksum(t) for t in inputs])
            del expected
