"""The offline reasoner's own words, one module per language.

The offline mind writes no prose of its own beyond these templates (body text is
always sentences quoted from the sources), so a report in German or Chinese is
only whole when its headings, summary, plan and notes are German or Chinese too.
Each language is a module of its own because together they would far exceed a
module's length; ``en`` is the reference the others must match key for key and
placeholder for placeholder. ``templates`` assembles them and picks one.
"""

from __future__ import annotations

from typing import TypeAlias

# An agent profile: (name, specialization, working style, source preferences).
Profile: TypeAlias = tuple[str, str, str, list[str]]
