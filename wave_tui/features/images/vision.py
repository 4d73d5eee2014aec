"""The built-in `vision` subagent (004 §13, IM5): it runs on `WAVE_VISION_MODEL` / settings
`visionModel` with Read only, so a main model that cannot see hands it the image paths and gets
a text description back. It exists only while a vision model is configured."""

from __future__ import annotations

from wave_tui.config.settings import EffectiveSettings
from wave_tui.features.subagents.definitions import VISION_MODEL, SubagentDefinition
from wave_tui.permissions.tool_table import READ

VISION_AGENT = "vision"

VISION_PROMPT = """\
You are an image-reading expert working for a coding agent whose model cannot see images. Read \
each image file named in the task with the Read tool, then reply with a precise, detailed \
description of what it shows, as text another model can act on: the layout, every piece of \
visible text verbatim (code, error messages, labels, numbers), colours and states of UI \
elements, anything that looks wrong, and whatever the task asks you to look for. Never guess \
what is not visible; say what you cannot make out."""

VISION_DESCRIPTION = (
    "Reads image files (screenshots, diagrams, photos) and describes them in detail, for a "
    "model that cannot see images: give it the image paths and what to look for."
)


# req: IM5
def vision_agents(settings: EffectiveSettings) -> tuple[SubagentDefinition, ...]:
    """The `vision` type while a vision model is configured, else nothing."""
    if not settings.vision_model:
        return ()
    return (
        SubagentDefinition(
            VISION_AGENT,
            VISION_DESCRIPTION,
            VISION_PROMPT,
            tools=(READ,),
            model=VISION_MODEL,
            read_only=True,
        ),
    )
