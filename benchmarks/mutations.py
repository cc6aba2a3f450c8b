"""Mutation score of the validation report: does it catch deliberate faults?

Runs the report's relevant sections once unchanged and once per fault. Each fault is
injected by monkeypatching in a fresh worker process (``multiprocessing`` with the spawn
start method; no file is edited) and the report runs there in process (``jobs=1``), so
every engine run sees the fault. A fault is **caught** when at least one row that agrees in
the unchanged run DIFFERS in the faulty one.

    python benchmarks/mutations.py                 # full scale, prints the score
    python benchmarks/mutations.py --quick         # scaled-down sections (CI settings)
    python benchmarks/mutations.py --out report    # also writes report/mutations.json,
                                                   # which `tcpfluid report --out report`
                                                   # then states in its header
    python benchmarks/mutations.py --only vegas-alpha,packet-delay --workers 2

The faults (each a plausible bug in one place):

* ``vegas-alpha``: Vegas's default α 2 → 1 (the law's default only);
* ``rounds-queue``: the round model's forward standing backlog × 1.1;
* ``packet-delay``: the packet simulator's link propagation delays × 1.1;
* ``feedback-lag``: the round model without its one-round feedback lag (0 rounds);
* ``ack-size``: the packet simulator's ACKs as large as data packets;
* ``red-max-p``: the packet simulator's RED max_p × 2;
* ``tcp-ho-table2``: TCP-Ho's Table-2 window change halved;
* ``qv-succ``: Quick Vegas's succ never counts past one increase.
"""

from __future__ import annotations

import argparse
import datetime
import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

# ------------------------------------------------------------------------------ faults


def _vegas_alpha() -> None:
    from tcpfluid.algorithms import vegas

    init = vegas.Vegas.__init__

    def patched(self: Any, *args: Any, **kw: Any) -> None:
        kw.setdefault("alpha", 1.0)
        init(self, *args, **kw)

    vegas.Vegas.__init__ = patched  # type: ignore[method-assign]


def _rounds_queue() -> None:
    from tcpfluid.fluid import _rounds_kernel as rk

    call = rk.ClassKernel.__call__

    def patched(self: Any, ws: Any, t0: Any, w0_s: Any, z_s: Any, w1_s: Any, part: int) -> None:
        # the forward queue's standing backlog (at the round's start and end) x 1.1
        if part & 1 and not self.cfg[rk.REVERSE]:
            call(self, ws, t0, w0_s, z_s, w1_s, 1)
            self.R[rk.QF0] *= 1.1
            self.R[rk.PIPE] = w1_s - 1.1 * (w1_s - self.R[rk.PIPE])
            part &= 2
        if part:
            call(self, ws, t0, w0_s, z_s, w1_s, part)

    rk.ClassKernel.__call__ = patched  # type: ignore[method-assign]


def _packet_delay() -> None:
    from tcpfluid.sim import _core, engine

    la = engine.link_arrays

    def patched(sc: Any) -> Any:
        lf, li, rf, ri, red = la(sc)
        lf[:, _core.L_DELAY] *= 1.1
        return lf, li, rf, ri, red

    engine.link_arrays = patched


def _feedback_lag() -> None:
    from tcpfluid.engines import _rounds as engine
    from tcpfluid.fluid import _rounds_engine, rounds

    patched = 0
    for mod in (rounds, _rounds_engine, engine):
        for obj in list(vars(mod).values()):
            # functions, and the engine classes' __init__ (the Rounds engine's field)
            fns = (
                [obj.__init__]
                if isinstance(obj, type) and obj.__module__ == mod.__name__
                else [obj]
            )
            for fn in fns:
                patched += _lag_default_to_zero(fn)
    if not patched:  # the fault must land somewhere: a renamed default is an error here
        raise RuntimeError("feedback-lag: no function with feedback_rounds=1 found")


def _lag_default_to_zero(fn: Any) -> int:
    """Set ``fn``'s default ``feedback_rounds`` from 1 to 0; 1 when it had one."""
    kw = getattr(fn, "__kwdefaults__", None)
    if kw and kw.get("feedback_rounds") == 1:
        kw["feedback_rounds"] = 0
        return 1
    d = getattr(fn, "__defaults__", None)
    code = getattr(fn, "__code__", None)
    if d and code is not None:
        names = code.co_varnames[: code.co_argcount]
        if "feedback_rounds" in names:
            i = names.index("feedback_rounds") - (len(names) - len(d))
            if 0 <= i < len(d) and d[i] == 1:
                fn.__defaults__ = (*d[:i], 0, *d[i + 1 :])
                return 1
    return 0


def _ack_size() -> None:
    from tcpfluid.sim import _core, engine

    fa = engine.flow_arrays

    def patched(*args: Any, **kw: Any) -> Any:
        ff, fs, fq = fa(*args, **kw)
        ff[:, _core.F_ACK] = ff[:, _core.F_PKT]
        return ff, fs, fq

    engine.flow_arrays = patched


def _red_max_p() -> None:
    from tcpfluid.sim import _checks, _setup

    rp = _setup.red_params

    def patched(link: Any) -> tuple[int, float, float, float, float]:
        code, lo, hi, max_p, w_q = rp(link)
        return code, lo, hi, min(2.0 * max_p, 1.0), w_q

    _setup.red_params = patched
    _checks.red_params = patched


def _tcp_ho_table2() -> None:
    from tcpfluid.algorithms import tcp_ho

    cls = tcp_ho.TcpHo
    orig = cls.on_round  # the law's one decision per round (every engine calls it)

    def patched(self: Any, state: Any, sample: Any, out: Any = None) -> Any:
        act = orig(self, state, sample, out)
        w = np.asarray(sample.cwnd, dtype=np.float64)
        up = act.cap - act.cwnd
        new = np.maximum(w + 0.5 * (act.cwnd - w), 2.0)  # the decrease halved
        act.cwnd[...] = new
        act.incr[...] = 0.5 * up / w  # and the increase
        act.cap[...] = new + 0.5 * up
        return act

    cls.on_round = patched  # type: ignore[method-assign]


def _qv_succ() -> None:
    from tcpfluid.algorithms import quick_vegas

    cls = quick_vegas.QuickVegas
    orig = cls.on_round  # the law's one decision per round (every engine calls it)

    def patched(self: Any, state: Any, *args: Any, **kw: Any) -> Any:
        np.minimum(state["succ"], 0.0, out=state["succ"])
        return orig(self, state, *args, **kw)

    cls.on_round = patched  # type: ignore[method-assign]


def _thesis_sections() -> tuple[str, ...]:
    """The thesis sections of the report (the RED gateway is the thesis's): those
    registered, in report order."""
    from tcpfluid.report import SECTIONS

    return tuple(s for s in SECTIONS if s.startswith("thesis"))


#: fault name -> (injection, the report sections that can show it). Vegas's α: Quick
#: Vegas inherits Vegas's default, so the basic section's Quick Vegas ramp-up against the
#: document's 13 s shows it, and the many-flows Vegas rows. RED's max_p: only a row whose
#: RED gateway's average queue passes its minimum threshold can show it: the thesis's
#: many-flow network (Reno and Vegas behind RED-5-15 and RED-54-108), whose Reno goodputs
#: move with it; the two-flow Vegas runs keep the average below it (no RED drop)
FAULTS: dict[str, tuple[Callable[[], None], tuple[str, ...]]] = {
    "vegas-alpha": (_vegas_alpha, ("new-equilibrium", "convergence-bdp", "basic", "many-flows")),
    "rounds-queue": (_rounds_queue, ("new-equilibrium", "convergence-bdp", "asymmetric")),
    "packet-delay": (_packet_delay, ("critical-window", "conspicuous", "asymmetric")),
    "feedback-lag": (
        _feedback_lag,
        ("critical-window", "new-equilibrium", "conspicuous", "convergence-bdp", "thesis-fairness"),
    ),
    "ack-size": (_ack_size, ("asymmetric",)),
    "red-max-p": (_red_max_p, _thesis_sections()),
    "tcp-ho-table2": (_tcp_ho_table2, ("conspicuous", "convergence-bdp")),
    "qv-succ": (_qv_succ, ("new-equilibrium", "convergence-bdp")),
}

# ------------------------------------------------------------------------------ runs


def _verdicts(fault: str | None, sections: Sequence[str], quick: bool) -> dict[str, Any]:
    """Worker: inject ``fault`` (None: none), run ``sections``, return each row's verdict."""
    import matplotlib

    matplotlib.use("Agg")
    if fault is not None:
        FAULTS[fault][0]()
    from tcpfluid.report import build_report

    t0 = time.perf_counter()
    rep = build_report(list(sections), quick=quick, jobs=1)
    rows = {
        f"{s.name} | {r.setting} | {r.quantity}": r.ok
        for s in rep.sections
        for t in s.tables
        for r in t.rows
    }
    return {"fault": fault, "rows": rows, "seconds": time.perf_counter() - t0}


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parent,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


def measure(
    faults: Sequence[str],
    *,
    quick: bool,
    workers: int,
    sections: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """The score of ``faults``: per fault, the rows that flipped to DIFFERS. ``sections``:
    run only these of each fault's sections (a scaled-down measurement); a mapping names
    them per fault."""
    unknown = [f for f in faults if f not in FAULTS]
    if unknown:
        raise ValueError(f"unknown fault {unknown[0]!r}; known: {', '.join(FAULTS)}")

    def chosen(f: str) -> tuple[str, ...]:
        own = FAULTS[f][1]
        if sections is None:
            return own
        keep = sections.get(f, ()) if isinstance(sections, Mapping) else sections
        return tuple(s for s in own if s in keep)

    every = sorted({s for f in faults for s in chosen(f)})
    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter per run: no leaks
    jobs: list[tuple[str | None, tuple[str, ...]]] = [(None, tuple(every))]
    jobs += [(f, chosen(f)) for f in faults]
    n = max(1, min(workers, len(jobs), os.cpu_count() or 1))
    with ProcessPoolExecutor(max_workers=n, mp_context=ctx, max_tasks_per_child=1) as ex:
        futs = [ex.submit(_verdicts, f, secs, quick) for f, secs in jobs]
        results = [f.result() for f in futs]
    base = results[0]["rows"]
    out = []
    for res in results[1:]:
        flipped = sorted(k for k, ok in res["rows"].items() if base.get(k) and not ok)
        # shown, not counted: rows the fault turned from DIFFERS to agree
        healed = sorted(k for k, ok in res["rows"].items() if base.get(k) is False and ok)
        out.append(
            {
                "name": res["fault"],
                "sections": list(chosen(res["fault"])),
                "caught": bool(flipped),
                "flipped": flipped,
                "to_agree": healed,
                "seconds": round(res["seconds"], 1),
            }
        )
    return {
        "measured_at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _commit(),
        "mode": "quick" if quick else "full",
        "baseline_seconds": round(results[0]["seconds"], 1),
        "caught": sum(f["caught"] for f in out),
        "planted": len(FAULTS),
        "faults": out,
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="scaled-down sections (CI settings)")
    ap.add_argument("--only", default=None, help="comma-separated faults (default: all)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--out", default=None, help="write OUT/mutations.json for the report")
    args = ap.parse_args(argv)
    if args.workers < 1:
        raise SystemExit(f"--workers must be >= 1, got {args.workers}")
    faults = [f.strip() for f in args.only.split(",")] if args.only else list(FAULTS)
    t0 = time.perf_counter()
    score = measure(faults, quick=args.quick, workers=args.workers)
    for f in score["faults"]:
        what = f"caught ({len(f['flipped'])} rows flip)" if f["caught"] else "MISSED"
        what += f"; {len(f['to_agree'])} rows turn to agree"
        print(f"{f['name']:>14}: {what}; {f['seconds']:.0f} s")
        for k in f["flipped"][:3]:
            print(f"{'':>16}{k}")
    print(
        f"mutation score: {score['caught']} of {len(score['faults'])} faults caught "
        f"({len(score['faults'])} run of the {score['planted']} planted) "
        f"({score['mode']} mode, {time.perf_counter() - t0:.0f} s wall)"
    )
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "mutations.json").write_text(json.dumps(score, indent=1), encoding="utf-8")
        print(f"wrote {out / 'mutations.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
