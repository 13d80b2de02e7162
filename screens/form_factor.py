"""Step 3: desktop, laptop or server? Pre-filled from the detected chassis."""

from __future__ import annotations

from screens.choice_step import ChoiceStep
from screens.panels import Check, detected_form_factor, form_factor_checks
from wizard.answers import FORM_FACTORS


class FormFactorScreen(ChoiceStep):
    STEP = "form_factor"
    FIELD = "form_factor"
    VALUES = FORM_FACTORS
    PAGES = ("form-factor",)

    def checks(self) -> list[Check]:
        return form_factor_checks(self.state.live, self.lang,
                                  answered=self.FIELD in self.state.session.touched)

    def detected(self) -> str | None:
        return detected_form_factor(self.state.live)
