"""Declarative query-parameter tables: one table per endpoint drives validation, the typed
parameters its handler reads, ``/openapi.json`` and the documentation.

An endpoint declares its parameters once, as a frozen dataclass whose fields are made with
:func:`param` (type, help, default, rules); :meth:`ParamTable.of` reads the declaration. A
:class:`ParamTable` parses the query arguments of a request into an instance of that class
(attributes mypy checks) and reports every problem at once, so a client fixes all of its
mistakes in one round trip.

A parameter other than an ``array`` is sent once: given twice (or more) with different values
(``format=json&format=markdown``) it is a problem naming it, never its first value taken in
silence; the same value repeated asks one thing and is read once.

An ``array`` parameter is a list of strings: every value of a repeated query parameter, or a
JSON array in a request body (:mod:`handlers.params.json_body` reads bodies with the same tables);
``max_items`` bounds its length and the string rules (``max_length``, ``pattern``) apply to
each item.

A numeric parameter with ``clamp`` takes a value above its maximum as the maximum, with a
warning, instead of refusing it. A table's ``inert`` rules (:mod:`handlers.params.inert`) name
the parameters that do nothing in some combinations; :meth:`ParamTable.settle` puts those back
to their defaults and warns, after the values are read.

One parameter's declaration is :mod:`handlers.params.param`; how a raw value becomes its typed
value, :mod:`handlers.params.values`; how it is described in ``/openapi.json``,
:mod:`handlers.params.schema`.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from handlers.params.inert import Inert, check_rules
from handlers.params.param import Param, ParamProblem, ParamType
from handlers.params.schema import openapi_param
from handlers.params.values import clamped, convert, convert_array


@dataclass
class ParsedParams:
    """The typed values of every declared parameter, the names the client actually sent, and
    what the client should hear about values that were replaced."""

    values: dict[str, Any]
    sent: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)


@dataclass(frozen=True)
class Params:
    """The base of an endpoint's parameter class: ``sent`` names the parameters the client
    actually sent, ``warnings`` says which values were replaced; every other field is a
    parameter made with :func:`param`."""

    sent: frozenset[str] = frozenset()
    warnings: tuple[str, ...] = ()


P = TypeVar("P", bound=Params)


def param(type: ParamType, help: str, default: Any = None, **rules: Any) -> Any:
    """One parameter of an endpoint's class: the field's name is the parameter's (unless
    ``rules`` give a ``name``: a parameter named as no attribute can be), ``rules`` are
    :class:`Param`'s other attributes."""
    return field(default=default, metadata={"param": {"type": type, "help": help, **rules}})


class ParamTable(Generic[P]):
    """The parameters of one endpoint, in the order the docs list them; ``model`` is the class
    a request's values are read into (None for a table built from bare :class:`Param` s)."""

    def __init__(
        self,
        params: Sequence[Param],
        model: type[P] | None = None,
        inert: Sequence[Inert] = (),
    ) -> None:
        self.params = tuple(params)
        self.model = model
        self.by_name = {p.name: p for p in self.params}
        if len(self.by_name) != len(self.params):
            raise ValueError("duplicate parameter name")
        check_rules(inert, self.by_name)
        self.inert = tuple(inert)
        """The rules naming parameters that do nothing in some combinations, in order."""
        self.known = frozenset(name for p in self.params for name in (p.name, *p.aliases))
        """Every name the table answers to, aliases included."""

    @classmethod
    def of(cls, model: type[P], inert: Sequence[Inert] = ()) -> ParamTable[P]:
        """The table an endpoint's parameter class declares, in its fields' order, with the
        rules saying when some of its parameters do nothing."""
        params = []
        for item in dataclasses.fields(model):
            if "param" not in item.metadata:
                continue
            rules = dict(item.metadata["param"])
            name = rules.pop("name", item.name)
            attr = item.name if name != item.name else ""
            params.append(Param(name=name, default=item.default, field=attr, **rules))
        return cls(params, model, inert)

    def read(self, args: Mapping[str, Sequence[str]]) -> tuple[P, list[ParamProblem]]:
        """Parse query arguments into the table's class; return it and all problems."""
        if self.model is None:
            raise TypeError("this table has no parameter class")
        parsed, problems = self.parse(args)
        attrs = {self.by_name[name].attr: value for name, value in parsed.values.items()}
        model = self.model(sent=frozenset(parsed.sent), warnings=tuple(parsed.warnings), **attrs)
        return model, problems

    def parse(self, args: Mapping[str, Sequence[str]]) -> tuple[ParsedParams, list[ParamProblem]]:
        """Parse query arguments (name -> list of raw strings); return values and all problems."""
        values: dict[str, Any] = {}
        sent: set[str] = set()
        problems: list[ParamProblem] = []
        warnings: list[str] = []
        for param in self.params:
            if param.type == "array":
                items = _all_sent(args, (param.name, *param.aliases))
                if items is not None:
                    sent.add(param.name)
                values[param.name], problem = convert_array(param, items)
                if problem is not None:
                    problems.append(problem)
                continue
            twice = _given_twice(args, (param.name, *param.aliases))
            if twice is not None:
                problems.append(ParamProblem(twice, _twice_words(args[twice])))
                values[param.name] = param.default
                continue
            raw = _first_sent(args, (param.name, *param.aliases))
            if raw is None:
                if param.required:
                    problems.append(ParamProblem(param.name, "is required", param.problem))
                values[param.name] = param.default
                continue
            sent.add(param.name)
            if param.lenient_choice and param.choices and raw.strip() not in param.choices:
                warnings.append(
                    f"{param.name}: {raw.strip()[:40]!r} is not one of "
                    f"{', '.join(param.choices)}; {param.default} is used"
                )
            try:
                value = convert(param, raw)
            except ValueError as exc:
                lowered = clamped(param, raw)
                if lowered is None:
                    problems.append(ParamProblem(param.name, str(exc), param.problem))
                    values[param.name] = param.default
                    continue
                value = lowered
                warnings.append(
                    f"{param.name}: {raw.strip()[:20]} is above the largest allowed, "
                    f"{lowered}; {lowered} is used"
                )
            values[param.name] = value
        return ParsedParams(values, sent, warnings), problems

    def settle(self, values: P, *, skip: frozenset[str] = frozenset()) -> tuple[P, list[str]]:
        """``values`` with every parameter that was sent but has no effect (the table's
        ``inert`` rules, in order, each judged on what the rules before it left) put back to
        its default, and a warning for each. A parameter sent at its default changes nothing
        either way, so it is not warned about. Rules that read a parameter in ``skip`` are
        passed over (a job's options have no answer format)."""
        current = {param.name: getattr(values, param.attr) for param in self.params}
        changed: dict[str, Any] = {}
        warnings: list[str] = []
        for rule in self.inert:
            name = rule.name
            if ({name} | rule.unless.names()) & skip or name not in values.sent:
                continue
            default = self.by_name[name].default
            if current[name] == default or rule.unless.holds(current):
                continue
            if not rule.keep:
                current[name] = changed[name] = default
            warnings.append(f"{name} ignored: it {rule.words()}")
        attrs = {self.by_name[name].attr: value for name, value in changed.items()}
        return (dataclasses.replace(values, **attrs) if changed else values), warnings

    def answer_variant(self, values: Any) -> dict[str, str]:
        """The values of every parameter that shapes the answer, read off ``values`` (the
        endpoint's typed parameters) and spelled one way each: what an answer kept for reuse is
        keyed by, besides its target. A parameter is in it unless declared
        ``shapes_answer=False``."""
        # repr spells the parameters' values (strings, numbers, booleans, None, tuples of
        # strings) one way each, and fast: this runs on every request.
        return {
            param.name: repr(getattr(values, param.attr))
            for param in self.params
            if param.shapes_answer
        }

    def unknown(self, names: Sequence[str]) -> list[str]:
        """The names among ``names`` this table does not know, in their order."""
        return [name for name in names if name not in self.known]

    def suggestion(self, name: str) -> str | None:
        """The known name ``name`` is most likely a misspelling of, if any is close."""
        close = difflib.get_close_matches(name.lower(), sorted(self.known), n=1, cutoff=0.7)
        return close[0] if close else None

    def openapi(self) -> list[dict[str, Any]]:
        """OpenAPI 3.1 parameter objects for every parameter and alias; a parameter an
        ``inert`` rule names says when it applies."""
        rules = {rule.name: rule for rule in self.inert}
        out: list[dict[str, Any]] = []
        for param in self.params:
            text = param.help
            rule = rules.get(param.name)
            if rule is not None:
                text += f" It {rule.words()}; otherwise it is ignored, with a warning."
            out.append(openapi_param(param, param.name, text))
            for alias in param.aliases:
                text = f"Alias of `{param.name}`; `{param.name}` wins when both are sent."
                out.append(openapi_param(param, alias, text, required=False))
        return out


def _first_sent(args: Mapping[str, Sequence[str]], names: Sequence[str]) -> str | None:
    """The first value of the first name that was sent (the canonical name before its aliases)."""
    for name in names:
        values = args.get(name)
        if values:
            return values[0]
    return None


def _given_twice(args: Mapping[str, Sequence[str]], names: Sequence[str]) -> str | None:
    """The first of ``names`` sent more than once with different values (the same value twice
    asks one thing; a name and its alias are told apart by the alias rule, not refused)."""
    for name in names:
        values = args.get(name)
        if values and len(set(values)) > 1:
            return name
    return None


def _twice_words(values: Sequence[str]) -> str:
    """What is said of a parameter given more than once: its values (each cut short)."""
    shown = ", ".join(repr(value[:40]) for value in dict.fromkeys(values))
    return f"was given more than once ({shown}); send it once"


def _all_sent(args: Mapping[str, Sequence[str]], names: Sequence[str]) -> Sequence[str] | None:
    """Every value of the first name that was sent (an empty list counts as sent)."""
    for name in names:
        if name in args:
            return args[name]
    return None
