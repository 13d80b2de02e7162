"""Step 5: the goal. Live: this machine's GPU memory and RAM against the highlighted goal."""

from __future__ import annotations

from textual.css.query import NoMatches
from textual.widgets import OptionList

from screens.choice_step import ChoiceStep
from screens.panels import Check, goal_checks
from screens.widgets import Choices


class GoalScreen(ChoiceStep):
    STEP = "goal"
    FIELD = "goal"
    PAGES = ("goal",)

    def options(self) -> list[tuple[str, str]]:
        return [(g.id, g.label(self.lang)) for g in self.state.knowledge.goals]

    def checks(self) -> list[Check]:
        knowledge = self.state.knowledge
        goal_id = self.shown_goal()
        goal = next((g for g in knowledge.goals if g.id == goal_id), knowledge.goals[0])
        return goal_checks(self.state.live, self.lang, goal, knowledge)

    def shown_goal(self) -> str:
        """The goal the panel describes: the highlighted one, as the user moves through them."""
        try:
            value = self.query_one("#answer", Choices).highlighted_value
        except NoMatches:  # not composed yet: the panel's first fill
            value = None
        return value or self.current_answer()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.live_changed()
