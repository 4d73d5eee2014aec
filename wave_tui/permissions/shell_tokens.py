"""The shell subset the read-only gate reasons about: bash's quoting rules, operators and
redirections, applied by our own tokenizer (see `shell.py` for why not bashlex).

Only unquoted characters can form operators, so a quoted `'<'` or `'-exec'` is an ordinary word
(the program sees it as an argument). Every construct the tokenizer does not model makes it refuse
the whole command.
"""

from __future__ import annotations


class Segment:
    """One simple command: its words (after quote removal) and operators, in order."""

    def __init__(self) -> None:
        self.tokens: list[tuple[bool, str]] = []  # (is_operator, text)
        self.has_glob = False  # unquoted * ? [ : the shell may expand them into option-like words


# Longest first, so `>>` is not read as `>` `>` (bash's maximal munch).
_OPERATORS = (
    ";;&", "&>>", "<<<", "<<-",
    ">>", "<<", "<&", ">&", "<>", ">|", "&>", "&&", "||", "|&", ";;", ";&",
    "<", ">", "|", "&", ";",
)  # fmt: skip
_SEPARATORS = frozenset({";", "|", "&&", "||"})
_REDIRECTS = frozenset({"<", ">", ">>", ">|", "&>", "&>>", ">&", "<&"})


def _is_fd(text: str) -> bool:
    """A file descriptor number as bash reads one: ASCII digits only (`>&²` names a file)."""
    return text.isascii() and text.isdigit()


def split_commands(command: str) -> list[Segment] | None:
    """Tokenize `command` and split it at unquoted `;`, `|`, `&&`, `||`.

    None when the command uses anything we refuse to reason about: substitutions, expansions,
    subshells, groups, brace expansion, comments, backgrounding, here-documents, control
    characters, unbalanced quotes.
    """
    if any(c == "`" or (ord(c) < 32 and c != "\t") or c == "\x7f" for c in command):
        return None  # command substitution, or newlines/control chars acting as separators
    segments = [Segment()]
    word: list[str] = []
    started = False  # a word is in progress (it may be empty: `''`)
    quoted = False  # some part of the current word was quoted or escaped
    i, n = 0, len(command)

    def end_word() -> None:
        nonlocal started, quoted
        if started:
            segments[-1].tokens.append((False, "".join(word)))
        word.clear()
        started = quoted = False

    while i < n:
        c = command[i]
        nxt = command[i + 1] if i + 1 < n else ""
        if c in " \t":
            end_word()
            i += 1
        elif c == "'":
            close = command.find("'", i + 1)
            if close < 0:
                return None
            word.append(command[i + 1 : close])
            started = quoted = True
            i = close + 1
        elif c == '"':
            i += 1
            while True:
                if i >= n:
                    return None
                d = command[i]
                after = command[i + 1] if i + 1 < n else ""
                if d == '"':
                    break
                if d == "\\" and after in ('"', "\\", "$"):
                    word.append(after)
                    i += 2
                    continue
                if d == "$" and after not in (" ", "\t", '"'):
                    return None  # `$x`, `${`, `$(` all expand inside double quotes
                word.append(d)
                i += 1
            started = quoted = True
            i += 1
        elif c == "\\":
            if not nxt:
                return None
            word.append(nxt)
            started = quoted = True
            i += 2
        elif c == "$":
            # A bare `$` (regex anchor) is literal; `$x`, `${`, `$(`, `$'`, `$"` all expand.
            if nxt not in ("", " ", "\t"):
                return None
            word.append(c)
            started = True
            i += 1
        elif c == "~" and nxt in ("+", "-"):
            return None  # `~+` / `~-` expand to $PWD / $OLDPWD
        elif c in "#{}()":
            return None
        elif c in "<>&|;":
            op = next(o for o in _OPERATORS if command.startswith(o, i))
            if c in "<>" and started and not quoted and _is_fd("".join(word)):
                word.clear()  # `2>`: a file descriptor number, not an argument
                started = False
            end_word()
            if op in _SEPARATORS:
                segments.append(Segment())
            elif op in _REDIRECTS:
                segments[-1].tokens.append((True, op))
            else:
                return None  # `&`, `|&`, `<>`, `<<`, `<<<`, `;;`, ...
            i += len(op)
        else:
            if c in "*?[":
                segments[-1].has_glob = True
            word.append(c)
            started = True
            i += 1
    end_word()
    return segments


_REDIRECT_TO_NULL = frozenset({">", ">>", ">|", "&>", "&>>"})
_REDIRECT_DUP = frozenset({">&", "<&"})


def _harmless_redirect(operator: str, target: str) -> bool:
    if operator in _REDIRECT_TO_NULL:
        return target == "/dev/null"
    if operator in _REDIRECT_DUP:
        return _is_fd(target) or target == "-"
    # `< file` only feeds a file to the command.
    return operator == "<" and bool(target)


def segment_words(segment: Segment) -> list[str] | None:
    """The argv of one simple command, with harmless redirections removed; None if unsafe."""
    words: list[str] = []
    tokens = segment.tokens
    i = 0
    while i < len(tokens):
        is_operator, text = tokens[i]
        if is_operator:
            if i + 1 >= len(tokens) or tokens[i + 1][0]:
                return None  # a redirection needs a target word
            if not _harmless_redirect(text, tokens[i + 1][1]):
                return None
            i += 2
            continue
        words.append(text)
        i += 1
    return words
