"""One declared parameter (:class:`Param`), as an endpoint's table holds it, and one reason a
value was refused (:class:`ParamProblem`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

ParamType = Literal["string", "integer", "number", "boolean", "array"]


@dataclass(frozen=True)
class Param:
    """One query parameter: its type, default, rules, and the words the docs show for it."""

    name: str
    type: ParamType
    help: str
    default: Any = None
    example: Any = None
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    # An unknown choice silently becomes the default instead of being an error (SPEC says so for
    # ai_sanitize_mode).
    lenient_choice: bool = False
    max_length: int | None = None
    # A regular expression the whole (stripped) value must match; ``pattern_words`` explains it.
    pattern: str | None = None
    pattern_words: str = ""
    round_to: int | None = None
    aliases: tuple[str, ...] = ()
    required: bool = False
    # The problem kind reported when this parameter is invalid; endpoints map kinds to codes.
    problem: str = "invalid_parameter"
    secret: bool = False
    max_items: int | None = None
    """The most items an ``array`` parameter may hold."""
    clamp: bool = False
    """A number above ``maximum`` is lowered to it, with a warning, instead of refused."""
    shapes_answer: bool = True
    """Whether the value can change the answer (its body or headers); False for the key, the
    target's spelling and the cache's own controls. A kept answer is reused only for the same
    values of every parameter that shapes it (:meth:`ParamTable.answer_variant`)."""
    field: str = ""
    """The attribute of the endpoint's class that holds the value, when the parameter's name
    cannot be one (``async``, a Python keyword); empty: the name."""

    @property
    def attr(self) -> str:
        """The attribute of the endpoint's class that holds this parameter's value."""
        return self.field or self.name


@dataclass(frozen=True)
class ParamProblem:
    """One reason a parameter was refused."""

    name: str
    message: str
    kind: str = "invalid_parameter"
