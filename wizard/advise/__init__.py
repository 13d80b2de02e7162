"""Answers + machine + knowledge → the recommendation (the `[recommendation]` table).

Pure and deterministic: no probing, no clock, no network; the same inputs give the same
advice, so it is table-tested over recorded machines. The order of the questions is the
order a good TA would ask them: does the student need a GPU at all; does this computer
already have one that is enough (then use it, or fix its setup first); if not, can this
computer take a card; what does the budget buy; and what is free meanwhile.

    records.py    what a recommendation holds, and the fixed numbers the advice uses
    recommend.py  advise(): the questions in order, to one Recommendation
    answers.py    what the answers say, and what is assumed where they were "not sure"
    local.py      this computer's GPU, and whether it is enough
    hardware.py   cards worth buying for the goal and budget, and a whole PC's cost
    clouds.py     the cloud platforms that fit, free and reachable first
    money.py      prices as people read them, and a finding's title inside a sentence
"""

from __future__ import annotations

from wizard.advise.assumptions import goal_phrase
from wizard.advise.clouds import rank_platforms
from wizard.advise.hardware import gpu_candidates
from wizard.advise.local import local_gpu
from wizard.advise.money import format_money
from wizard.advise.recommend import advise
from wizard.advise.recommendation import PICK_SEGMENTS, GpuPick, PlatformPick, Recommendation
from wizard.text.output import mid_sentence

__all__ = [
    "PICK_SEGMENTS", "GpuPick", "PlatformPick", "Recommendation", "advise",
    "format_money", "goal_phrase", "gpu_candidates", "local_gpu", "mid_sentence", "rank_platforms",
]
