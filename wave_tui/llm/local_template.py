"""The chat template given to a local GGUF that ships without one (e.g. a base model).

ChatML, because llama.cpp's tool-call polyfills understand it and any tokenizer can spell it.
Content may arrive as a list of text parts (the system prompt does), so both shapes render.
"""

from __future__ import annotations

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
