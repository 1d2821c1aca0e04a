"""Parameters that do nothing in some combinations, declared as rules: "X has no effect unless
C". An endpoint's table carries its rules (:class:`~handlers.params.table.ParamTable`'s
``inert``). After a request's parameters are read,
:meth:`~handlers.params.table.ParamTable.settle` finds every sent parameter whose rule's
condition does not hold, puts it back to its default (so the answer cannot depend on it; a rule
with ``keep`` only warns) and says so in a warning, the way an unknown parameter is warned
about (``X-Pagecast-Warnings``, and ``warnings`` in a JSON answer). The same words go into the
parameter's description in ``/openapi.json`` and the reference.

A condition is made of :class:`Is` (a parameter has one of some values), :class:`Given` (a
parameter was given a value), :class:`Absent` (it was not) and the combinations :class:`AnyOf`
and :class:`AllOf`. The rules are checked in their order, each against the values the rules
before it left: a rule can rely on an earlier one (chunk_size after chunking).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class Condition(Protocol):
    """When a parameter has an effect."""

    def holds(self, values: Mapping[str, Any]) -> bool:
        """Whether the condition is met by these parameter values."""
        ...

    def words(self) -> str:
        """The condition as the docs and warnings say it."""
        ...

    def names(self) -> frozenset[str]:
        """The parameters the condition reads."""
        ...


def _spelled(value: Any) -> str:
    """A value as a query string spells it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Is:
    """The parameter ``name`` has one of ``values``."""

    name: str
    values: tuple[Any, ...]

    def holds(self, values: Mapping[str, Any]) -> bool:
        return values.get(self.name) in self.values

    def words(self) -> str:
        return " or ".join(f"{self.name}={_spelled(value)}" for value in self.values)

    def names(self) -> frozenset[str]:
        return frozenset({self.name})


@dataclass(frozen=True)
class Given:
    """The parameter ``name`` has a value (not none, not empty)."""

    name: str

    def holds(self, values: Mapping[str, Any]) -> bool:
        value = values.get(self.name)
        return value is not None and value != ""

    def words(self) -> str:
        return f"a {self.name}"

    def names(self) -> frozenset[str]:
        return frozenset({self.name})


@dataclass(frozen=True)
class Absent:
    """The parameter ``name`` has no value."""

    name: str

    def holds(self, values: Mapping[str, Any]) -> bool:
        return not Given(self.name).holds(values)

    def words(self) -> str:
        return f"no {self.name}"

    def names(self) -> frozenset[str]:
        return frozenset({self.name})


@dataclass(frozen=True)
class AnyOf:
    """At least one of ``conditions``."""

    conditions: tuple[Condition, ...]

    def holds(self, values: Mapping[str, Any]) -> bool:
        return any(condition.holds(values) for condition in self.conditions)

    def words(self) -> str:
        return " or ".join(condition.words() for condition in self.conditions)

    def names(self) -> frozenset[str]:
        return frozenset().union(*(condition.names() for condition in self.conditions))


@dataclass(frozen=True)
class AllOf:
    """Every one of ``conditions``."""

    conditions: tuple[Condition, ...]

    def holds(self, values: Mapping[str, Any]) -> bool:
        return all(condition.holds(values) for condition in self.conditions)

    def words(self) -> str:
        return " and ".join(_grouped(condition) for condition in self.conditions)

    def names(self) -> frozenset[str]:
        return frozenset().union(*(condition.names() for condition in self.conditions))


def _grouped(condition: Condition) -> str:
    """A condition's words, in parentheses when they hold an "or" inside an "and"."""
    words = condition.words()
    return f"({words})" if " or " in words else words


def one_of(name: str, *values: Any) -> Is:
    """The parameter ``name`` has one of ``values``."""
    return Is(name, values)


def any_of(*conditions: Condition) -> AnyOf:
    """At least one of ``conditions``."""
    return AnyOf(conditions)


def all_of(*conditions: Condition) -> AllOf:
    """Every one of ``conditions``."""
    return AllOf(conditions)


TIER_FORCED = any_of(*(one_of(flag, True) for flag in ("use_proxy", "use_premium", "use_superior")))
"""A proxy tier is forced: what proxy_country picks a country of (Markdown and oEmbed alike)."""


@dataclass(frozen=True)
class Inert:
    """The parameter ``name`` has no effect unless ``unless`` holds."""

    name: str
    unless: Condition
    keep: bool = False
    """Warn only, keeping the value: for a parameter that still names the result (a hosted
    frame's id is made of every option sent), so that a request keeps the id it had."""

    def words(self) -> str:
        """Where the rule is told: the parameter's description and the warning."""
        return f"applies only with {self.unless.words()}"


def check_rules(rules: Sequence[Inert], known: Iterable[str]) -> None:
    """ValueError when a rule names a parameter the table does not declare (a typo in the
    rules would otherwise never fire)."""
    declared = frozenset(known)
    for rule in rules:
        missing = ({rule.name} | rule.unless.names()) - declared
        if missing:
            raise ValueError(f"inert rule for {rule.name} names unknown {sorted(missing)}")
