"""Step 1: do you need a GPU? Live: CPU, memory, and a measured CPU/GPU speed."""

from __future__ import annotations

from screens.choice_step import ChoiceStep
from screens.panels import Check, need_gpu_checks
from wizard.answers import NEED_GPU


class NeedGpuScreen(ChoiceStep):
    STEP = "need_gpu"
    FIELD = "need_gpu"
    VALUES = NEED_GPU
    PAGES = ("need-gpu",)

    def checks(self) -> list[Check]:
        return need_gpu_checks(self.state.live, self.lang, self.state.knowledge)
