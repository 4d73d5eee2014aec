"""The chat template given to a local GGUF that ships without one (e.g. a base model).

ChatML, because llama.cpp's tool-call polyfills understand it and any tokenizer can spell it.
Content may arrive as a list of text parts (the system prompt does), so both shapes render.

The other way round, `TemplateTokenFilter`: what a local model leaks of its template as text
(a base model writes `<|im_end|>` and goes on to play the user) is taken out of its reply.
"""

from __future__ import annotations

import functools
import re

CHATML_TEMPLATE = """\
{%- for message in messages -%}
<|im_start|>{{ message.role }}
{% if message.content is string -%}
{{ message.content }}
{%- elif message.content -%}
{%- for part in message.content -%}{{ part.text }}{%- endfor -%}
{%- endif -%}
{%- if message.tool_calls -%}
{%- for call in message.tool_calls %}
<tool_call>{"name": "{{ call.function.name }}", "arguments": {% if call.function.arguments is string %}{{ call.function.arguments }}{% else %}{{ call.function.arguments | tojson }}{% endif %}}</tool_call>
{%- endfor -%}
{%- endif %}<|im_end|>
{% endfor -%}
{%- if add_generation_prompt -%}
<|im_start|>assistant
{% endif -%}
"""


# -- what a local model leaks of its chat template ----------------------------------------------

# A base model (the bundled one) or a template that does not match the model writes the
# template's control tokens as text. Local engines' replies lose them (never other endpoints':
# there, a reply about chat templates may quote them on purpose).
_ROLES = ("system", "user", "assistant", "tool", "model", "ipython", "developer")
_TURN_OPENERS = ("<|im_start|>", "<start_of_turn>")  # then a role and a newline
_HEADER_OPEN, _HEADER_CLOSE = "<|start_header_id|>", "<|end_header_id|>"  # Llama 3
_MARKERS = (
    "<|im_end|>",
    "<|endoftext|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|end_of_text|>",
    "<|begin_of_text|>",
    "<|end|>",
    "<|user|>",
    "<|assistant|>",
    "<|system|>",
    "<end_of_turn>",
    "<eos>",
    "<bos>",
    _HEADER_OPEN,
    _HEADER_CLOSE,
)


@functools.cache
def _template_pattern() -> re.Pattern[str]:
    """Built on first use: only a local engine's replies are filtered, and the pattern is long."""
    roles = "|".join(_ROLES)
    header = f"{re.escape(_HEADER_OPEN)}(?:{roles}){re.escape(_HEADER_CLOSE)}\n*"
    openers = "|".join(map(re.escape, _TURN_OPENERS))
    markers = "|".join(map(re.escape, _MARKERS))
    return re.compile(f"{header}|(?:{openers})(?:(?:{roles})\n?)?|(?:{markers})\n?")


def _template_spellings() -> tuple[str, ...]:
    """Every longest text the pattern takes, for holding back a token split across pieces."""
    found = [m + "\n" for m in _MARKERS]
    found += [o + role + "\n" for o in _TURN_OPENERS for role in _ROLES]
    found += [f"{_HEADER_OPEN}{role}{_HEADER_CLOSE}\n\n" for role in _ROLES]
    return tuple(found)


_SPELLINGS = _template_spellings()
_LONGEST = max(map(len, _SPELLINGS))


class TemplateTokenFilter:
    """A local model's streamed reply without its chat template: tokens (and the role line of
    a turn opener) before the answer are dropped, with the blank lines between them; the first
    token after the answer ends it — what follows is the model playing the next turns.

    What `feed` and `flush` return, joined, is the same however the text was split."""

    def __init__(self) -> None:
        self._pending = ""  # may still become a token
        self._lead = ""  # whitespace before the answer: dropped if a token follows it
        self._started = False  # the answer has begun
        self.ended = False  # a token after the answer: everything from here on is dropped

    def feed(self, piece: str) -> str:
        if self.ended:
            return ""
        text = self._pending + piece
        hold = _held_from(text)
        self._pending = text[hold:]
        return self._take(text[:hold])

    def flush(self) -> str:
        text, self._pending = self._pending, ""
        return "" if self.ended else self._take(text)

    def _take(self, text: str) -> str:
        out: list[str] = []
        at = 0
        for token in _template_pattern().finditer(text):
            out.append(self._answer(text[at : token.start()]))
            if self._started:
                self.ended = True
                return "".join(out)
            self._lead = ""
            at = token.end()
        out.append(self._answer(text[at:]))
        return "".join(out)

    def _answer(self, text: str) -> str:
        if self._started or not text:
            return text
        if not text.strip():
            self._lead += text
            return ""
        self._started = True
        lead, self._lead = self._lead, ""
        return (lead + text).lstrip("\n")


def strip_template_tokens(text: str) -> str:
    """`TemplateTokenFilter` on a whole reply at once."""
    cleaner = TemplateTokenFilter()
    return cleaner.feed(text) + cleaner.flush()


def _held_from(text: str) -> int:
    """Where the text that may still become a template token starts (len(text): nowhere)."""
    start = max(0, len(text) - _LONGEST)
    i = text.find("<", start)
    while i >= 0:
        tail = text[i:]
        if any(len(s) > len(tail) and s.startswith(tail) for s in _SPELLINGS):
            return i
        i = text.find("<", i + 1)
    return len(text)
