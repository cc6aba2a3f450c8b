"""The control-law interface shared by the round model and the packet simulator.

A law decides once per round: from a :class:`RoundSample` of the round that ended it
returns a :class:`RoundAction` (``cwnd`` set at the boundary, ``incr`` added per ACK of the
next round, up to ``cap``); losses come between rounds through :meth:`ControlLaw.on_loss`.
Every method works on arrays of shape ``(n,)``; state is a ``dict`` of float64 arrays
updated in place. The contract: docs/algorithms.md, "The contract the engines rely on".
"""

from __future__ import annotations

import inspect
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ._common import base_kind, check_le, loss_args

__all__ = [
    "CONGESTION_AVOIDANCE",
    "LOSS_BURST",
    "LOSS_BURST_TIMEOUT",
    "LOSS_FAST",
    "LOSS_RETX",
    "LOSS_TIMEOUT",
    "SENDER_DEFAULTS",
    "SLOW_START",
    "ControlLaw",
    "HonouredValues",
    "OdeForm",
    "Parameter",
    "RoundAction",
    "RoundSample",
    "SenderTraits",
    "classical_ode_form",
    "loss_kind",
]

FloatArray = NDArray[np.float64]
State = dict[str, FloatArray]
#: indices of flows in a law's state arrays (``on_loss``)
FlowIndex = NDArray[np.intp]
#: a compiled round rule, the number of flows and its arguments (:meth:`ControlLaw._round_rule`)
RoundRule = tuple[Any, int, tuple[Any, ...]]
#: a compiled loss rule, the state arrays and options it takes (:meth:`ControlLaw._loss_rule`)
LossRule = tuple[Any, tuple[FloatArray, ...], tuple[Any, ...]]

#: phase codes stored in ``state["phase"]``
SLOW_START = 0.0
CONGESTION_AVOIDANCE = 1.0

#: loss kinds passed to :meth:`ControlLaw.on_loss`
LOSS_FAST = 1  # detected by duplicate ACKs / Vegas's fine-grained check; first transmission
LOSS_RETX = 2  # a retransmitted packet was lost again
LOSS_TIMEOUT = 3  # coarse-grained retransmission timeout
#: a duplicate-ACK loss while the flow's ACKs are being dropped on an ACK-path bottleneck
#: (the fluid engines report it; every law but Reno treats it exactly as LOSS_FAST)
LOSS_BURST = 4
#: a timeout while the flow's ACKs are being dropped (every law but Reno: LOSS_TIMEOUT)
LOSS_BURST_TIMEOUT = 5


def loss_kind(timeout: bool, burst: bool) -> int:
    """The kind a fluid engine reports for a loss event: :data:`LOSS_TIMEOUT` or
    :data:`LOSS_FAST`, their burst variants when the flow's ACKs were being dropped on the
    ACK path (``burst``)."""
    if timeout:
        return LOSS_BURST_TIMEOUT if burst else LOSS_TIMEOUT
    return LOSS_BURST if burst else LOSS_FAST


@dataclass
class RoundSample:
    """What each sender measured over the round that just ended (arrays of shape ``(n,)``).

    The window at its end (packets), BaseRTT (the least RTT ever, s), the round's mean, least and
    largest RTT (s; TCP-Ho's Minimal and Maximal RTT), the ACKs received, and the round's
    mean forward one-way delay and its least ever (s, RFC 1323 timestamps; forward-path
    Vegas, the asymmetric-networks paper §V; ``None`` when the engine does not measure it).
    ``backlog``: Vegas's Δ as the sender measured it, packets (an ns-2 Vegas agent's, from
    its packet counts: docs/simulator.md, "Fast recovery"); ``None``, the engines' default,
    when the law computes Δ from the window and RTTs. The laws whose sender declares
    ``decides_on_sender_delta`` (:class:`SenderTraits`) decide on it.
    """

    cwnd: FloatArray
    base_rtt: FloatArray
    rtt_mean: FloatArray
    rtt_min: FloatArray
    rtt_max: FloatArray
    acks: FloatArray
    fwd_delay_mean: FloatArray | None = None
    fwd_delay_base: FloatArray | None = None
    backlog: FloatArray | None = None


@dataclass
class RoundAction:
    """A law's decision for the next round (arrays of shape ``(n,)``)."""

    cwnd: FloatArray
    incr: FloatArray
    cap: FloatArray

    @classmethod
    def empty(cls, n: int) -> RoundAction:
        """An action of ``n`` flows whose arrays are not yet written (for ``out=``)."""
        cwnd, incr, cap = np.empty((3, n))
        return cls(cwnd=cwnd, incr=incr, cap=cap)


@dataclass(frozen=True)
class HonouredValues:
    """The values of a law's choice parameter that its classical form runs as its own rule
    (:attr:`OdeForm.honours`): ``values`` on every path, ``without_ack_drops`` only where no
    ACK-path bottleneck drops the flows' ACKs; ``rule`` the form's rule in words (Reno's:
    one halving per loss, which is ``recovery="halving"``, and ``"newreno"`` while no ACK
    is dropped). Any other value needs the hybrid model."""

    parameter: str
    values: tuple[str, ...]
    rule: str
    without_ack_drops: tuple[str, ...] = ()

    def honoured(self, value: Any, ack_drops: bool) -> bool:
        """Whether the form runs ``value`` as its rule on a path where ACKs are dropped
        (``ack_drops``: an ACK-path bottleneck) or not."""
        return value in self.values or (value in self.without_ack_drops and not ack_drops)

    @property
    def accepted(self) -> str:
        """The honoured values in words: ``"recovery='halving', and 'newreno' where no
        ACK-path bottleneck drops ACKs"``."""
        text = " or ".join(f"{self.parameter}={v!r}" for v in self.values)
        if self.without_ack_drops:
            text += f", and {' or '.join(map(repr, self.without_ack_drops))} where no ACK-path "
            text += "bottleneck drops ACKs"
        return text


@dataclass(frozen=True)
class OdeForm:
    """A law's classical fluid (ODE) form: ``rate(sign, delta, w, rtt, alpha, gamma)``, the
    window's rate of change between losses (packets/s; ``delta`` Vegas's Δ, ``sign`` the
    ramped sign of eq (2)), ``loss_cut`` the fraction of the window a loss event removes,
    ``description`` the formula, ``forward_delay`` Δ from the forward queueing delay only
    (forward-path Vegas), ``places`` the law's parameters the classical model reads, each
    with the :class:`~tcpfluid.fluid.OdeFlow` field it sets (``("alpha", "alpha_pkts")``;
    an alias such as Enhanced Vegas's δ is read through the parameters it sets), ``honours``
    the law's choice parameters the form has no place for but runs one reading of
    (:class:`HonouredValues`: Reno's ``recovery``)."""

    rate: Callable[..., Any]
    loss_cut: float
    description: str
    forward_delay: bool = False
    places: tuple[tuple[str, str], ...] = ()
    honours: tuple[HonouredValues, ...] = ()


@dataclass(frozen=True)
class Parameter:
    """One parameter of a control law, declared on its class (:attr:`ControlLaw.parameters`).

    Its keyword, default and description (unit, source); the bounds of a number (``None``:
    unbounded; ``*_open`` excludes the bound) or the accepted strings of a choice; whether a
    number may have one value per flow, whether ``None`` is accepted, whether it is a
    scenario key too (``build_scenario(..., name=value)``, ``--set name=value``), and the
    rule parameters an alias sets to its value (Enhanced Vegas's δ sets α = β = δ)."""

    name: str
    default: Any
    description: str
    lower: float | None = None
    upper: float | None = None
    lower_open: bool = False
    upper_open: bool = False
    choices: tuple[str, ...] = ()
    per_flow: bool = True
    optional: bool = False
    scenario_key: bool = False
    sets: tuple[str, ...] = ()

    @property
    def accepted(self) -> str:
        """The accepted values in words: ``"(0, 1]"``, ``"[0, inf)"``, ``"one of 'a', 'b'"``."""
        if self.choices:
            return "one of " + ", ".join(map(repr, self.choices))
        lo = "-inf" if self.lower is None else f"{self.lower:g}"
        hi = "inf" if self.upper is None else f"{self.upper:g}"
        left = "(" if self.lower is None or self.lower_open else "["
        right = ")" if self.upper is None or self.upper_open else "]"
        return f"{left}{lo}, {hi}{right}" + (" or None" if self.optional else "")

    def check(self, value: Any) -> Any:
        """``value`` checked: a float64 array (per flow), a float, a choice or ``None``
        (TypeError: the wrong type; ValueError: outside :attr:`accepted`, naming both)."""
        from .._validation import check_range
        from ._common import check_below, param_array

        name = self.name
        if value is None and self.optional:
            return None
        if self.choices:
            if not isinstance(value, str) or value not in self.choices:
                raise ValueError(f"{name} must be {self.accepted}; got {value!r}")
            return value
        if not self.per_flow:
            lo = -math.inf if self.lower is None else self.lower
            hi = math.inf if self.upper is None else self.upper
            hi_open = self.upper is None or self.upper_open
            return check_range(name, value, lo, hi, lo_open=self.lower_open, hi_open=hi_open)
        zero = self.lower == 0.0
        arr = param_array(
            name,
            value,
            positive=zero and self.lower_open,
            nonnegative=zero and not self.lower_open,
            minimum=None if zero else self.lower,
        )
        if self.lower is not None and not zero and self.lower_open:
            bad = arr <= self.lower
            if bad.any():
                raise ValueError(f"{name} must be in {self.accepted}, got {arr[bad].flat[0]!r}")
        if self.upper is not None:
            check_below(
                name, arr, self.upper, accepted=self.accepted, inclusive=not self.upper_open
            )
        return arr


@dataclass(frozen=True)
class SenderTraits:
    """How a packet sender running a law behaves (:attr:`ControlLaw.sender`).

    ``fine_retransmit``, Vegas's fine-grained retransmission check on the first or second
    duplicate ACK (the Quick Vegas paper §3.1); ``False``: three duplicate ACKs or a timeout
    only (Reno). ``decides_on_sender_delta``, the law's round decision reads a Δ its sender
    measured when the sample carries one (:attr:`RoundSample.backlog`; an ns-2 Vegas
    agent's, ``simulate_packets(ns2_vegas_agent_delta=True)``); ``False``: the law
    computes every quantity it decides on from the sample's window and RTTs."""

    fine_retransmit: bool = True
    decides_on_sender_delta: bool = False


def _parameters_doc(parameters: tuple[Parameter, ...]) -> str:
    """A numpydoc Parameters section of the declarations ``parameters``."""
    lines = ["", "", "Parameters", "----------"]
    for p in parameters:
        kind = "str" if p.choices else "float or array_like" if p.per_flow else "float"
        lines += [
            f"{p.name} : {kind}, default {p.default!r}",
            f"    {p.description}; accepted: {p.accepted}",
        ]
    return "\n".join(lines)


#: the sender of a law that declares nothing else: Vegas's fine-grained retransmission
SENDER_DEFAULTS = SenderTraits()


def classical_ode_form(cls: type[ControlLaw]) -> OdeForm | None:
    """The classical ODE form law class ``cls`` declares itself (a subclass that changes the
    rule does not inherit it), else ``None``."""
    form = cls.__dict__.get("ode_form")
    return form if isinstance(form, OdeForm) else None


class ControlLaw(ABC):
    """Base class of every congestion-control law.

    Subclasses set :attr:`name`, the declared :attr:`parameters` (checked when the law is
    made, then kept by :meth:`_configure`), :meth:`init_state`, :meth:`on_round` and
    :meth:`on_loss` (or, as a :class:`CompiledLaw`, the compiled rules those two run)."""

    name: ClassVar[str]
    #: the law's keyword parameters, in the order the documentation lists them
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    #: pairs ``(lo, hi)`` of its parameters the law needs in order, ``lo <= hi`` per flow
    #: (Vegas's α <= β of eq (2)); checked with the parameters (:meth:`check_relations`)
    ordered: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: how a packet sender running the law behaves
    sender: ClassVar[SenderTraits] = SENDER_DEFAULTS
    #: window at the start of a connection, packets
    initial_window: float = 2.0
    #: the law's classical ODE form (:func:`classical_ode_form`), if it has one
    ode_form: ClassVar[OdeForm | None] = None
    #: the largest amplitude (packets) of a limit cycle the law's own moves keep at steady
    #: state, accepted as settled by :func:`tcpfluid.metrics.settling` (0: the law stops on
    #: a fixed point; ``inf``: any cycle that neither drifts nor grows)
    cycle_amplitude_pkts: ClassVar[float] = 0.0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("__doc__") and cls.parameters and "__init__" not in cls.__dict__:
            # the Parameters section of the class's documentation: its declarations
            head, notes, rest = inspect.cleandoc(cls.__doc__ or "").partition("\n\nNotes\n")
            cls.__doc__ = head + _parameters_doc(cls.parameters) + notes + rest
        if "__init__" in cls.__dict__:  # a constructor of its own: its own signature
            cls.__signature__ = None  # type: ignore[attr-defined]
        elif "parameters" in cls.__dict__:
            # the constructor's signature, for help() and documentation: the declarations
            cls.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
                [
                    inspect.Parameter(
                        p.name,
                        inspect.Parameter.KEYWORD_ONLY,
                        default=p.default,
                        annotation="str" if p.choices else "Any" if p.per_flow else "float",
                    )
                    for p in cls.parameters
                ],
                return_annotation="None",
            )

    def __init__(self, **params: Any) -> None:
        self._values = self.check_parameters(params)
        self._configure(self._values)

    @classmethod
    def check_parameters(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        """Every declared parameter's checked value (its default where ``params`` has none),
        then each alias's value under the names it sets (TypeError: an undeclared keyword or
        a wrong type; ValueError: out of range)."""
        cls._check_parameter_names(params)
        values = cls.expand_aliases(
            {p.name: p.check(params.get(p.name, p.default)) for p in cls.parameters}
        )
        cls.check_relations(values)
        return values

    @classmethod
    def check_relations(
        cls, values: Mapping[str, Any], names: Mapping[str, str] | None = None
    ) -> None:
        """Raise ValueError unless ``values`` (checked parameters, aliases expanded; any
        subset) keep the relations the law declares: the parameters an alias sets are equal
        when given without it (Enhanced Vegas's α = β, its δ) and each :attr:`ordered` pair
        is in order (Vegas's α <= β). ``names``: the name a message gives a parameter
        (an :class:`~tcpfluid.fluid.OdeFlow` field such as ``alpha_pkts``), else its own."""
        label = dict(names or {})
        cls._check_alias_targets(values, label)
        for lo, hi in cls.ordered:
            if lo in values and hi in values:
                lo_v, hi_v = (np.asarray(values[k], dtype=np.float64) for k in (lo, hi))
                check_le(label.get(lo, lo), lo_v, label.get(hi, hi), hi_v)

    @classmethod
    def _check_alias_targets(cls, values: Mapping[str, Any], label: Mapping[str, str]) -> None:
        """Raise ValueError naming the law, unless the parameters each alias sets that
        ``values`` gives without the alias are equal (``label``: their names in messages)."""
        for p in cls.parameters:
            given = {t: values[t] for t in p.sets if t in values}
            if given and p.name not in values and len({float(v) for v in given.values()}) > 1:
                listing = ", ".join(f"{label.get(t, t)}={v!r}" for t, v in given.items())
                raise ValueError(
                    f"{cls.name} needs {' == '.join(label.get(t, t) for t in p.sets)} "
                    f"(its {p.name}), got {listing}"
                )

    @classmethod
    def expand_aliases(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` with each alias's value also under the parameters it sets
        (:attr:`Parameter.sets`: Enhanced Vegas's δ as α = β = δ)."""
        out = dict(params)
        for p in cls.parameters:
            for target in p.sets if p.name in params else ():
                out[target] = params[p.name]
        return out

    @classmethod
    def fold_aliases(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` with the parameters an alias sets, when given without the alias,
        replaced by the alias (α = β as Enhanced Vegas's δ; ValueError if they differ)."""
        cls._check_alias_targets(params, {})
        out = dict(params)
        for p in cls.parameters:
            given = {t: out[t] for t in p.sets if t in out}
            if given and p.name not in out:
                out = {k: v for k, v in out.items() if k not in given}
                out[p.name] = next(iter(given.values()))
        return out

    @classmethod
    def _check_parameter_names(cls, names: Iterable[str]) -> None:
        """Raise TypeError naming the first of ``names`` the law does not declare, the law
        and the parameters it accepts (the one check of law parameter names)."""
        declared = [p.name for p in cls.parameters]
        for key in names:
            if key not in declared:
                listing = ", ".join(declared) if declared else "none"
                law = getattr(cls, "name", cls.__name__)
                raise TypeError(
                    f"unknown parameter {key!r} for algorithm {law!r}; accepted: {listing}"
                )

    def _configure(self, values: Mapping[str, Any]) -> None:  # noqa: B027 - optional hook
        """Keep the checked parameter ``values`` (:meth:`check_parameters`) and check how
        they relate (α <= β, ...). The default keeps nothing."""

    @abstractmethod
    def init_state(self, n: int) -> State:
        """Fresh per-flow state for ``n`` flows (must contain ``"phase"``)."""

    @abstractmethod
    def on_round(self, state: State, sample: RoundSample) -> RoundAction:
        """Decide the next round from the round just measured; update ``state`` in place (a
        law may accept ``out``, a :class:`RoundAction` to write into and return)."""

    @abstractmethod
    def on_loss(self, state: State, index: FlowIndex, kind: int, cwnd: FloatArray) -> FloatArray:
        """React to a loss of ``kind`` on flows ``index`` whose windows are ``cwnd``; return
        their new windows (updating their state in place). Until the next :meth:`on_round`
        the engine adds nothing per ACK (``incr = 0``, ``cap`` the new window). A law may
        accept ``out``, an array to write into and return."""

    def _round_rule(self, state: State, sample: RoundSample) -> RoundRule:
        """The compiled rule :meth:`on_round` runs, the number of flows and the rule's
        arguments before the action's three arrays (views of ``state`` and ``sample``)."""
        raise NotImplementedError

    def _loss_rule(self, state: State, kind: int) -> LossRule:
        """The compiled loss rule :meth:`on_loss` runs on a loss of ``kind``, the state
        arrays it takes and its options (:meth:`CompiledLaw.on_loss`)."""
        raise NotImplementedError

    @staticmethod
    def _run_rule(rule: Any, n: int, args: tuple[Any, ...], out: RoundAction | None) -> RoundAction:
        """Run the compiled round ``rule`` on ``args`` and the arrays of the action of ``n``
        flows (``out``, else a new one); return the action."""
        act = RoundAction.empty(n) if out is None else out
        (rule.fn or rule.get())(*args, act.cwnd, act.incr, act.cap)
        return act

    def _bind_round(
        self, state: State, sample: RoundSample, out: RoundAction
    ) -> Callable[[], None] | None:
        """:meth:`on_round` ``(state, sample, out=out)`` as a call without arguments: its
        compiled rule bound once to arrays that stay in place (one flow of the packet
        simulator); ``None`` when the law's :meth:`on_round` is not that rule."""
        if not _runs_rule(type(self), "on_round", "_round_rule"):
            return None
        rule, n, args = self._round_rule(state, sample)
        if n != out.cwnd.shape[0]:
            return None
        return rule.bind(*args, out.cwnd, out.incr, out.cap)

    def _bind_loss(
        self, state: State, cwnd: FloatArray, out: FloatArray, kind: int
    ) -> Callable[[], None] | None:
        """:meth:`on_loss` ``(state, [0], kind, cwnd, out=out)`` as a call without
        arguments (as :meth:`_bind_round`); ``None`` also when ``cwnd`` and ``out`` are not
        float64 arrays of one window."""
        if not _runs_rule(type(self), "on_loss", "_loss_rule"):
            return None
        for a in (cwnd, out):
            if type(a) is not np.ndarray or a.shape != (1,) or a.dtype != np.float64:
                return None
        rule, arrays, options = self._loss_rule(state, kind)
        first = np.zeros(1, dtype=np.intp)
        return rule.bind(*arrays, first, base_kind(kind), *options, cwnd, out)

    def initial_action(self, state: State) -> RoundAction:
        """The action for round 0, before any measurement: window :attr:`initial_window`, no
        growth (Vegas's and TCP-Ho's; laws that grow in round 0 override it)."""
        n = state["phase"].shape[0]
        w = np.full(n, float(self.initial_window))
        return RoundAction(cwnd=w, incr=np.zeros(n), cap=w.copy())

    def params(self) -> dict[str, Any]:
        """The law's declared parameters and their values: floats, lists (one value per
        flow), strings or ``None`` (for summaries and JSON)."""
        values = getattr(self, "_values", {})
        out: dict[str, Any] = {}
        for p in type(self).parameters:
            v = values.get(p.name, p.default)
            if isinstance(v, np.ndarray):
                v = float(v) if v.ndim == 0 else [float(x) for x in v]
            out[p.name] = v
        return out

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({inner})"


class CompiledLaw(ControlLaw):
    """A law whose :meth:`on_round` and :meth:`on_loss` run its compiled rules
    (:meth:`_round_rule`, :meth:`_loss_rule`), which an engine may bind once to arrays it
    never reallocates (:meth:`_bind_round`, :meth:`_bind_loss`)."""

    def on_round(
        self, state: State, sample: RoundSample, out: RoundAction | None = None
    ) -> RoundAction:
        """The law's decision for the next round (its compiled rule; the law's class
        documents it), written into ``out`` if given, else a new action."""
        return self._run_rule(*self._round_rule(state, sample), out)

    def on_loss(
        self,
        state: State,
        index: FlowIndex,
        kind: int,
        cwnd: FloatArray,
        out: FloatArray | None = None,
    ) -> FloatArray:
        """The law's reaction to a loss of ``kind`` on flows ``index`` (its compiled loss
        rule): the new windows, written into ``out`` if given, else a new array."""
        rule, arrays, options = self._loss_rule(state, kind)
        kind, idx, w = loss_args(index, kind, cwnd)
        new = np.empty(w.size) if out is None else out
        (rule.fn or rule.get())(
            *arrays,
            idx if idx.ndim == 1 else idx.reshape(-1),
            kind,
            *options,
            w if w.ndim == 1 else w.reshape(-1),
            new,
        )
        return new if w.ndim == 1 or out is not None else new.reshape(w.shape)


#: :class:`CompiledLaw`'s own methods, as its class statement defined them
_COMPILED = {m: CompiledLaw.__dict__[m] for m in ("on_round", "on_loss")}


def _runs_rule(cls: type, method: str, rule: str) -> bool:
    """Whether ``method`` of law class ``cls`` runs its compiled ``rule`` method: the
    method is :class:`CompiledLaw`'s own, neither overridden along the MRO nor replaced
    afterwards, and a law class defines ``rule``."""
    for c in cls.__mro__:
        if method in c.__dict__:
            return (
                c is CompiledLaw
                and c.__dict__[method] is _COMPILED[method]
                and getattr(cls, rule) is not ControlLaw.__dict__[rule]
            )
    return False
