"""Step 2: do you have an NVIDIA GPU? Pre-filled from NVML and the PCI scan."""

from __future__ import annotations

from screens.choice_step import ChoiceStep
from screens.panels import Check, detected_nvidia, nvidia_checks, nvidia_detection_note
from wizard.answers import HAS_NVIDIA


class NvidiaScreen(ChoiceStep):
    STEP = "has_nvidia"
    FIELD = "has_nvidia"
    VALUES = HAS_NVIDIA
    PAGES = ("nvidia",)

    def checks(self) -> list[Check]:
        return nvidia_checks(self.state.live, self.lang)

    def detected(self) -> str | None:
        return detected_nvidia(self.state.live)

    def detection_note(self) -> Check | None:
        return nvidia_detection_note(self.state.live, self.lang)
