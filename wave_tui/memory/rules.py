"""Memory rules (R1–R10, X4): the public face of the three rule modules.

- `rule_parse.py`: a rule file's frontmatter and its `paths` (braces, comma strings);
- `rule_discovery.py`: the roots, the walk, precedence and the per-session cache;
- `rule_match.py`: `Rule`, the ordered `RuleSet` and which rules a file path activates.
"""

from __future__ import annotations

from wave_tui.memory.rule_discovery import RuleCache, discover_rules, rule_roots
from wave_tui.memory.rule_match import Rule, RuleSet
from wave_tui.memory.rule_parse import expand_braces, parse_paths_value

__all__ = [
    "Rule",
    "RuleCache",
    "RuleSet",
    "discover_rules",
    "expand_braces",
    "parse_paths_value",
    "rule_roots",
]
