"""The options the sub-commands share, each defined once (importing nothing heavy); a
single-valued option given twice is refused."""

from __future__ import annotations

import argparse
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..scenarios import Scenario


def add_command(sub: Any, name: str, **kw: Any) -> argparse.ArgumentParser:
    """Register sub-command ``name`` (``help``, ``description``, ``epilog`` printed as written)."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name, formatter_class=argparse.RawDescriptionHelpFormatter, **kw
    )
    return parser


class _Once:
    """Mixin of a single-valued action: the second call within one parse is an error."""

    _seen: Any = None

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        seen = self._seen() if self._seen is not None else None
        if seen is namespace:
            names = "/".join(self.option_strings)  # type: ignore[attr-defined]
            given = f"{option_string} {values}" if values not in (None, []) else option_string
            raise ValueError(f"{names} is given more than once ({given}); give it once")
        self._seen = weakref.ref(namespace)
        super().__call__(parser, namespace, values, option_string)  # type: ignore[misc]


_ONCE: dict[type, type] = {}


def refuse_repeated_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` with every single-valued option (of its sub-commands too) refusing a second
    occurrence with a ``ValueError`` naming it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in {id(p): p for p in action.choices.values()}.values():
                refuse_repeated_options(sub)
            continue
        kind = type(action)
        single = issubclass(kind, argparse._StoreAction | argparse._StoreConstAction)
        if not action.option_strings or not single or isinstance(action, _Once):
            continue
        if kind not in _ONCE:
            _ONCE[kind] = type(f"Once{kind.__name__}", (_Once, kind), {})
        action.__class__ = _ONCE[kind]
    return parser


def add_jobs_option(p: argparse.ArgumentParser, extra: str = "") -> None:
    """Add ``-j/--jobs N`` to ``p`` (read into ``args.jobs`` as text; :func:`parse_jobs`)."""
    help = (
        "worker processes (default: the CPUs this process may use, capped at the work; 0: the "
        "same; 1: everything in this process)"
    )
    p.add_argument(
        "-j", "--jobs", default=None, metavar="N", help=help + (f"; {extra}" if extra else "")
    )


def parse_jobs(value: object) -> int | None:
    """``--jobs``: an integer >= 0; ``None`` (the default) and ``0`` give ``None`` (the CPUs)."""
    if value is None:
        return None
    try:
        n = int(str(value).strip())
    except ValueError:
        n = -1
    if n < 0:
        raise ValueError(f"--jobs must be an integer >= 0 (0: all CPUs), got {value!r}")
    return n if n > 0 else None


def add_repeated_option(
    p: argparse.ArgumentParser, flag: str, help: str, metavar: str = "KEY=VALUE"
) -> None:
    """Add the repeatable option ``flag`` to ``p``, read into ``args.<flag>s`` (``args.sets``)."""
    p.add_argument(
        flag, dest=f"{flag[2:]}s", action="append", default=[], metavar=metavar, help=help
    )


def add_quiet_option(p: argparse.ArgumentParser, help: str, dest: str = "quiet") -> None:
    """Add ``-q/--quiet/--no-progress`` (no progress bar) to ``p``, read into ``args.dest``."""
    p.add_argument("-q", "--quiet", "--no-progress", dest=dest, action="store_true", help=help)


def split_key_value(item: str, option: str) -> tuple[str, str]:
    """``KEY=VALUE`` as its stripped key and value; ``ValueError`` naming ``option`` and the
    item if it is not of that form."""
    key, sep, value = item.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise ValueError(f"{option} expects KEY=VALUE, got {item!r}")
    return key.strip(), value.strip()


def parse_sets(items: list[str]) -> dict[str, str]:
    """``["k=v", ...]`` to a dict; raises ``ValueError`` naming a malformed item."""
    out: dict[str, str] = {}
    for item in items:
        key, value = split_key_value(item, "--set")
        if key == "algorithm":
            raise ValueError("--set algorithm=... is not accepted; use --algorithm")
        if key in out:
            raise ValueError(f"--set {key} is given twice ({out[key]!r}, {value!r})")
        out[key] = value
    return out


#: engine options the command line sets through options of their own
_DEDICATED = {"seed": "--seed", "rtt_model": "--rtt-model", "laws": "--param"}


#: ``--option``'s help
ENGINE_OPTION_HELP = (
    "an option of the engine (repeatable), as the Python API's engine options take it: "
    "true/false, a number (seconds where the name ends in _s), a word, or a comma-separated "
    "list (one value per flow), e.g. -e packet --option delayed_ack=true --option "
    "fast_recovery=ns2-vegas; -e rounds --option feedback_rounds=0 (docs/api-engines.md lists "
    "each engine's options)"
)


def _option_value(text: str) -> Any:
    """An ``--option`` value: ``true``/``false``, ``none``, an integer, a float (``inf``
    too), a comma-separated tuple of these, or the word itself."""
    if "," in text:
        return tuple(_option_value(part.strip()) for part in text.split(","))
    word = text.lower()
    if word in ("true", "false"):
        return word == "true"
    if word == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_engine_options(
    items: list[str], accepted: tuple[str, ...], engine: str
) -> dict[str, Any]:
    """``--option`` items as keyword arguments of ``engine``, whose options are ``accepted``;
    a ``ValueError`` names a malformed item, an unknown option (listing ``accepted``), one
    given twice, or one with an option of its own (``--seed``...)."""
    out: dict[str, Any] = {}
    for item in items:
        key, value = split_key_value(item, "--option")
        if key in _DEDICATED:
            raise ValueError(f"--option {key}=... is not accepted; use {_DEDICATED[key]}")
        if key not in accepted:
            names = ", ".join(n for n in accepted if n not in _DEDICATED)
            raise ValueError(
                f"--option: the {engine} engine has no option {key!r}; its options: {names}"
            )
        if key in out:
            raise ValueError(f"--option {key} is given twice")
        out[key] = _option_value(value)
    return out


#: ``--param``'s help
PARAM_HELP = (
    "a law parameter of some flows (repeatable): [SELECTOR:]KEY=VALUE, SELECTOR an algorithm "
    "(vegas:alpha=1), a flow's name, a position or range from 1 (1-8:alpha=1); without a "
    "selector every flow"
)


def parse_params(items: list[str]) -> list[tuple[str | None, dict[str, Any]]]:
    """``["vegas:alpha=1", "beta=3"]`` as ``[("vegas", {"alpha": 1}), (None, {"beta": 3})]``."""
    from ..scenarios._file_build import parse_number

    out: list[tuple[str | None, dict[str, Any]]] = []
    for item in items:
        lhs, sep, value = item.partition("=")
        sel, colon, key = lhs.rpartition(":")
        key = key.strip()
        if not sep or not key or not value.strip() or (colon and not sel.strip()):
            raise ValueError(f"--param expects [SELECTOR:]KEY=VALUE, got {item!r}")
        try:
            number = parse_number(value)
        except ValueError:
            raise ValueError(
                f"--param {item!r}: the value must be a number, got {value.strip()!r}"
            ) from None
        out.append((sel.strip() if colon else None, {key: number}))
    return out


def add_algorithm_option(p: argparse.ArgumentParser) -> None:
    """Add ``-a/--algorithm`` (a law or a mix for the scenario's flows) to ``p``."""
    from ..algorithms.registry import ALGORITHMS

    p.add_argument(
        "-a", "--algorithm", default=None, metavar="ALGO",
        help=f"control law of every flow: {', '.join(ALGORITHMS)}; or a mix NAME:COUNT,... "
        "given to the flows in order (vegas:8,reno:2); default: a scenario file's own",
    )  # fmt: skip


def scenario_with_laws(
    name: str, algorithm: str | None, sets: dict[str, str], params: list[str]
) -> Scenario:
    """The scenario ``name`` built with ``sets``, its algorithms set by ``algorithm`` (a name
    or a mix; ``None``: as the file says) and the ``--param`` items applied."""
    from ..scenarios import build_scenario
    from ..scenarios.files import _load_with_laws, is_scenario_file
    from ..scenarios.mix import with_flow_params, with_mix

    sc = build_scenario(name, **sets)
    if algorithm is not None:
        mixed = with_mix(sc, algorithm)
        if is_scenario_file(name):  # flows the file names after their law: after the new one
            pairs = zip(sc.flows, mixed.flows, strict=True)
            moved = {f.name: g.algorithm for f, g in pairs if g.algorithm is not None}
            mixed = with_mix(_load_with_laws(name, moved, **sets), algorithm)
        sc = mixed
    for selector, values in parse_params(params):
        sc = with_flow_params(sc, selector, values)
    return sc


def scenario_from_args(
    name: str, algorithm: str | None, sets: dict[str, str], params: list[str]
) -> Scenario:
    """:func:`scenario_with_laws`, refused (naming ``--algorithm``) if a flow has no law."""
    sc = scenario_with_laws(name, algorithm, sets, params)
    ft = sc.flow_table  # the flows' laws as a table (in the order of their first flow)
    missing = [ft.names[int((ft.law == k).argmax())] for k, (a, _) in enumerate(ft.laws) if not a]
    if missing:
        from ..algorithms.registry import ALGORITHMS

        raise ValueError(
            f"--algorithm: flow {missing[0]!r} of {name!r} has no algorithm; give "
            f"--algorithm NAME (one of {', '.join(ALGORITHMS)}) or a mix such as "
            "vegas:8,reno:2"
        )
    return sc
