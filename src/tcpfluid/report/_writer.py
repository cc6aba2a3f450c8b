"""Markdown and self-contained HTML renderings of a :class:`~tcpfluid.report.Report`, and
:func:`write_report`, which replaces the report's folder whole."""

from __future__ import annotations

import base64
import contextlib
import html
import json
import os
import re
import shutil
import uuid
from collections.abc import Mapping
from pathlib import Path as FsPath
from typing import Any

from .._validation import _pid_alive, atomic_output
from ._core import Report, SectionResult, prose
from ._summary import row_mechanisms, summarize
from ._table import ENGINE_COLUMNS, NA, PHASE_MAX, PHASE_MIN, TOLERANCES, Row, Table, fmt_value


def _cell(row: Row, col: str) -> str:
    v = row.values.get(col)
    s = "" if v is None else fmt_value(v)
    return f"**{s}**" if col == row.reference and not isinstance(v, NA) else s


def _spread(row: Row) -> str:
    """The packet simulator's [min, max] over the phase or start order, ``–`` without."""
    lo, hi = row.values.get(PHASE_MIN), row.values.get(PHASE_MAX)
    return "–" if lo is None or hi is None else f"{fmt_value(lo)}–{fmt_value(hi)}"


def _explained(section: str, row: Row) -> str:
    """The mechanisms covering a differing row, ``unexplained``, or empty."""
    if row.ok and not row.layers_failures:
        return ""
    ids = row_mechanisms(section, row)
    return ", ".join(ids) if ids else "unexplained"


def _table_kinds(t: Table) -> str:
    kinds = dict.fromkeys(r.kind for r in t.rows)
    return "; ".join(f"{k} {TOLERANCES[k].describe()}" for k in kinds)


#: the documents' short keys, as the tables and tcpfluid.published use them
DOCUMENT_KEYS = prose("writer", "document_keys")


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _header(
    report: Report, command: str | None, mutations: Mapping[str, Any] | None = None
) -> list[str]:
    quick = "quick (CI settings: smaller grids, scaled-down many-flow runs)"
    r = report
    times = {"elapsed_s": r.elapsed_s, "tasks_cpu_s": r.tasks_cpu_s, "main_cpu_s": r.main_cpu_s}
    run = {"mode": quick if r.config.quick else "full", "jobs": r.config.jobs, **times}
    v = ", ".join(f"{k} {val}" for k, val in r.versions.items())
    lines = [prose("writer", "run_line", n_tasks=len(r.tasks), **run), f"Versions: {v}."]
    lines += [mutation_line(mutations), DOCUMENT_KEYS]
    lines.append(prose("writer", "one_rule", params_text=_params_text()))
    lines += [f"- {k}: {t.reason}" for k, t in TOLERANCES.items()]
    return [f"Command: `{command}`.", *lines] if command else lines


def _params_text() -> str:
    from ._common import DOCUMENT_PARAMS
    from ._table import ALGORITHM_NAMES

    return "; ".join(
        f"{ALGORITHM_NAMES[a]} " + ", ".join(f"{k} = {v:g}" for k, v in p.items())
        for a, p in DOCUMENT_PARAMS.items()
        if p
    )


def mutation_line(mutations: Mapping[str, Any] | None) -> str:
    """The header's mutation-score sentence from ``mutations.json`` of the output
    directory (written by ``benchmarks/mutations.py``): the faults caught of those run, and
    how many are planted (``"planted"``; a partial run, ``--only``, runs fewer), or that
    none was measured."""
    if not mutations:
        return prose("writer", "mutation_none")
    faults = list(mutations.get("faults", []))
    caught = sum(1 for f in faults if f.get("caught"))
    names = ", ".join(f"{f['name']} {'caught' if f.get('caught') else 'MISSED'}" for f in faults)
    when = {k: mutations.get(k, "?") for k in ("measured_at", "commit")}
    planted = mutations.get("planted")
    key = "mutation_run_of" if isinstance(planted, int) else "mutation_run_of_unknown"
    run_of = prose("writer", key, n_faults=len(faults), planted=planted)
    counts = {"caught": caught, "n_faults": len(faults), "names": names, "run_of": run_of}
    return prose("writer", "mutation_score", mode_name=mutations.get("mode", "?"), **when, **counts)


def read_mutations(out_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """``mutations.json`` of ``out_dir`` when present and readable, else ``None``."""
    p = FsPath(out_dir) / "mutations.json"
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def mechanisms_href(out: FsPath) -> str | None:
    """``docs/mechanisms.md`` of the source tree as a link from the folder ``out`` (a
    relative path, so the link works wherever the report is written and when the tree
    moves with it); ``None`` when the package runs without its source tree's docs."""
    docs = FsPath(__file__).resolve().parents[3] / "docs" / "mechanisms.md"
    if not docs.is_file():
        return None
    return FsPath(os.path.relpath(docs, out.resolve())).as_posix()


def render_markdown(
    report: Report,
    *,
    command: str | None = None,
    figures_rel: str = "figures",
    mutations: Mapping[str, Any] | None = None,
    tables: bool = True,
    mechanisms_href: str | None = None,
) -> str:
    """The report as Markdown (figures linked as ``<figures_rel>/<name>.png``; the
    mutation score from ``mutations``, :func:`read_mutations`). With ``tables=False`` (as
    ``index.md``) each table links to its differing rows in ``sections/<name>.md``;
    ``mechanisms_href``: the mechanisms' page (``docs/mechanisms.md``) as the file links it
    (``None``: the mechanisms are named, not linked)."""
    out = ["# tcpfluid validation report", ""]
    out += summarize(report).markdown(mechanisms_href)  # the summary opens the report
    out += ["## This run", "", *_header(report, command, mutations), ""]
    out += ["## Sections", ""]
    out += ["| section | rows | DIFFERS | compute time (s) |", "|---|---|---|---|"]
    for s in report.sections:
        n, bad, el = s.n_rows, s.n_disagreements, s.elapsed_s
        out.append(f"| [{_md_escape(s.title)}](#{s.name}) | {n} | {bad} | {el:.1f} |")
    out.append("")
    for s in report.sections:
        out += _md_section(s, figures_rel, tables=tables)
    return "\n".join(out) + "\n"


def render_section_pages(report: Report, figures_rel: str = "../figures") -> dict[str, str]:
    """One Markdown page per section (``sections/<name>.md`` beside ``index.md``): its
    tables' rows that differ, with their values, verdicts and mechanisms."""
    pages = {}
    for s in report.sections:
        lines = [f"# {s.title}", "", "[Back to the report](../index.md)", ""]
        lines += _md_section(s, figures_rel)[3:]  # without the anchor and the heading
        pages[s.name] = "\n".join(lines) + "\n"
    return pages


def _md_table(section: str, t: Table, rows: bool = True) -> list[str]:
    """A section's table in Markdown: its rows that differ (against the reference or
    between the layers) in the standard columns that hold a number, the packets' min–max,
    the verdicts and mechanisms; the rows that agree are counted (``rows=False``: the
    count and a link to ``sections/<section>.md``)."""
    shown = [r for r in t.rows if r.verdict != "agree" or r.layers_failures]
    cols = [
        c
        for c in ENGINE_COLUMNS  # the others: index.html and report.json
        if any(c in r.values and not isinstance(r.values[c], NA) for r in shown)
    ]
    quantities = {(r.quantity, r.unit) for r in t.rows}
    shared, caption = len(quantities) == 1, t.caption
    if shared:
        caption += " — " + _quantity(*next(iter(quantities)))
    head = ["setting", *([] if shared else ["quantity"]), *cols, "packet min–max"]
    head += ["verdict", "fluid vs packets", "explained by"]
    note = (
        f"{len(t.rows) - len(shown)} of {len(t.rows)} rows agree, against the reference and "
        "between the layers (their values: index.html and report.json)"
    )
    if not shown:
        note += "."
    elif rows:
        note += "; the rows that differ:"
    else:
        note += f"; [the {len(shown)} that differ](sections/{section}.md)."
    out = [f"**{_md_escape(caption)}** (tolerance: {_table_kinds(t)})", "", note, ""]
    if not (rows and shown):
        return out
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in shown:
        cells = [
            r.setting,
            *([] if shared else [_quantity(r.quantity, r.unit)]),
            *[_cell(r, c) for c in cols],
            _spread(r),
            r.verdict,
            r.layers_verdict,
            _explained(section, r),
        ]
        out.append("| " + " | ".join(_md_escape(c) for c in cells) + " |")
    return [*out, ""]


def _quantity(q: str, unit: str) -> str:
    return f"{q} ({unit})" if unit else q


def _md_section(s: SectionResult, figures_rel: str, tables: bool = True) -> list[str]:
    # the intro's first sentence, at most 240 characters (index.html has the whole text)
    head = s.intro.split(". ", 1)[0].rstrip(".") + "."
    head = head if len(head) <= 240 else head[:239].rstrip() + "…"
    out = [f'<a id="{s.name}"></a>', f"## {s.title}", "", head]
    out += ["(The section's full text, its n/a reasons and every column: index.html.)", ""]
    for t in s.tables:
        out += _md_table(s.name, t, rows=tables)
    for f in s.figures:
        out += [f"![{_md_escape(f.caption)}]({figures_rel}/{f.name}.png)", ""]
    return out


_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1400px;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:12px;margin:0.5em 0}
th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top}
th{background:#f3f3f3}
td.ok{background:#e9f7ea}td.bad{background:#fdecea}
figure{margin:1em 0}figcaption{font-size:13px;color:#444;max-width:900px}
img{max-width:900px;border:1px solid #eee}
.na{color:#888}
"""


def render_html(
    report: Report, *, command: str | None = None, mutations: Mapping[str, Any] | None = None
) -> str:
    """The report as one self-contained HTML page (figures embedded as base64 PNG)."""
    e = html.escape
    out = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">']
    out += ["<title>tcpfluid validation report</title>", f"<style>{_CSS}</style></head><body>"]
    out += ["<h1>tcpfluid validation report</h1>", *summarize(report).html()]  # summary first
    out.append('<h2 id="this-run">This run</h2>')
    out += [f"<p>{_inline(line)}</p>" for line in _header(report, command, mutations)]
    comparisons = [c for s in report.sections for c in s.comparisons]
    if comparisons:  # what some rows compare where a cell moved
        out.append("<p>What some rows compare, and why (the sections say it again):</p><ul>")
        out += [f"<li>{e(c)}</li>" for c in comparisons]
        out.append("</ul>")
    head = "".join(f"<th>{h}</th>" for h in ("section", "rows", "DIFFERS", "compute time (s)"))
    out += ["<h2>Sections</h2>", f"<table><tr>{head}</tr>"]
    for s in report.sections:
        out.append(
            f'<tr><td><a href="#{e(s.name)}">{e(s.title)}</a></td><td>{s.n_rows}</td>'
            f"<td>{s.n_disagreements}</td><td>{s.elapsed_s:.1f}</td></tr>"
        )
    out.append("</table>")
    for s in report.sections:
        out.append(f'<h2 id="{e(s.name)}">{e(s.title)}</h2><p>{e(s.intro)}</p>')
        for t in s.tables:
            out += _html_table(s.name, t)
        for f in s.figures:
            b64 = base64.b64encode(f.png).decode("ascii")
            out.append(
                f'<figure><img alt="{e(f.caption)}" src="data:image/png;base64,{b64}">'
                f"<figcaption>Figure <code>{e(f.name)}</code>: {e(f.caption)}"
                "</figcaption></figure>"
            )
        out += [f"<blockquote>{e(note)}</blockquote>" for note in (*s.comparisons, *s.notes)]
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _inline(s: str) -> str:
    """Escape, then turn `code` and **bold** markers into tags."""
    t = html.escape(s)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", t)


def _html_table(section: str, t: Table) -> list[str]:
    e = html.escape
    cols = list(t.columns)
    head = ["setting", "quantity", "unit", *cols, "verdict", "fluid vs packets", "explained by"]
    out = [
        f"<p><b>{e(t.caption)}</b> (tolerance: {e(_table_kinds(t))})</p><table><tr>"
        + "".join(f"<th>{e(h)}</th>" for h in head)
        + "</tr>"
    ]
    for r in t.rows:
        cells = [e(r.setting), e(r.quantity), e(r.unit)]
        for v, c in ((r.values.get(c), c) for c in cols):
            na = isinstance(v, NA) and f'<span class="na" title="{e(v.reason)}">n/a</span>'
            cells.append(na or _inline(_cell(r, c)))
        cls, lcls = ("ok" if r.ok else "bad"), ("bad" if r.layers_failures else "ok")
        out.append(
            "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + f'<td class="{cls}">'
            f'{e(r.verdict)}</td><td class="{lcls}">{e(r.layers_verdict)}</td>'
            f"<td>{e(_explained(section, r))}</td></tr>"
        )
    out.append("</table>")
    if na_notes := t.na_notes():
        items = "".join(f"<li>{e(n)}</li>" for n in na_notes)
        out.append(f"<details><summary>Not available (n/a)</summary><ul>{items}</ul></details>")
    return out


#: suffixes of a report folder's hidden siblings while it is replaced: new report, old one
_STAGE, _OLD = ".tmp", ".old"


def _sibling(out: FsPath, suffix: str) -> FsPath:
    return out.with_name(f".{out.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}{suffix}")


def _remove_stale_siblings(out: FsPath) -> None:
    """Clean up after a writer killed while replacing ``out``: its staged new report is
    removed; its previous report is put back if ``out`` is missing (killed between the two
    renames), else removed. Siblings of a live writer are left alone."""
    prefix = f".{out.name}."
    try:
        entries = sorted(out.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not name.startswith(prefix) or not name.endswith((_STAGE, _OLD)):
            continue
        pid = name[len(prefix) :].split(".")[0]
        if not pid.isdigit() or _pid_alive(int(pid)) or not entry.is_dir():
            continue
        if name.endswith(_OLD) and not out.exists():
            with contextlib.suppress(OSError):
                os.rename(entry, out)
                continue
        shutil.rmtree(entry, ignore_errors=True)


def _check_report_only(out: FsPath, names: set[str]) -> None:
    """Refuse to replace a folder that holds more than a report (its files would go)."""
    if not out.exists():
        return
    if not out.is_dir():
        raise ValueError(f"out must be a directory, got {str(out)!r}, which is a file")
    for entry in out.iterdir():
        hidden_tmp = entry.name.startswith(".") and entry.name.endswith(_STAGE)
        if not (entry.name in names or hidden_tmp):
            raise ValueError(
                f"out {str(out)!r} holds {entry.name!r}, which is not part of a report; the "
                "report replaces its whole folder: give a new or report-only directory"
            )
        if entry.name in ("figures", "sections") and entry.is_dir():
            suffixes = (".png", ".svg") if entry.name == "figures" else (".md",)
            for f in entry.iterdir():
                if not (f.suffix in suffixes or f.name.endswith(_STAGE)):
                    raise ValueError(
                        f"out {str(out)!r}: {str(f)!r} is not a report file; the report "
                        "replaces its whole folder: give a new directory or move it away"
                    )


def write_report(
    report: Report,
    out_dir: str | os.PathLike[str],
    *,
    figures_dir: str | os.PathLike[str] | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Write ``index.md``, ``sections/*.md`` (each section's rows that differ),
    ``index.html``, ``report.json`` and ``figures/*.png|svg`` into ``out_dir``; with
    ``figures_dir``, also write the PNG figures there. Returns the written paths.

    The report appears whole or not at all: the files are written into a hidden sibling
    folder (``.OUT.<pid>.<random>.tmp``) that is then renamed to ``out_dir``; a killed
    run's siblings are removed (or put back) by the next run.

    Raises
    ------
    ValueError
        ``out_dir`` is empty, a file, or a folder holding files that are not a report's.
    OSError
        A file could not be written (its path in the message).
    """
    if str(out_dir).strip() == "":
        raise ValueError("out must name a directory, got '' (the current directory)")
    out = FsPath(out_dir).absolute()
    fd: FsPath | None = None
    if figures_dir is not None:
        fd = FsPath(figures_dir)
        if str(figures_dir).strip() == "":
            raise ValueError("figures must name a directory, got ''")
        if fd.exists() and not fd.is_dir():
            raise ValueError(f"figures must be a directory, got {str(fd)!r}, which is a file")
    # everything is rendered before anything is written; mutations.json is carried over
    mutations = read_mutations(out)
    texts = {
        "index.md": render_markdown(
            report,
            command=command,
            mutations=mutations,
            tables=False,
            mechanisms_href=mechanisms_href(out),
        ),
        "index.html": render_html(report, command=command, mutations=mutations),
        "report.json": json.dumps(
            {**report.to_dict(), "summary": summarize(report).to_dict()}, indent=1, default=str
        ),
    }
    if mutations is not None:
        texts["mutations.json"] = json.dumps(mutations, indent=1)
    pages = render_section_pages(report)
    _check_report_only(out, {*texts, "mutations.json", "figures", "sections"})
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_siblings(out)
    stage = _sibling(out, _STAGE)
    figures = [f for s in report.sections for f in s.figures]
    files = {f"figures/{f.name}.{x}": getattr(f, x) for f in figures for x in ("png", "svg")}
    files |= {name: text.encode("utf-8") for name, text in texts.items()}
    files |= {f"sections/{name}.md": text.encode("utf-8") for name, text in pages.items()}
    written: list[str] = []
    try:
        for rel, data in {"figures": None, "sections": None, **files}.items():
            # a failed write (ENOSPC carries no file name) names the report's file
            try:
                if data is None:
                    (stage / rel).mkdir(parents=True)
                    continue
                (stage / rel).write_bytes(data)
            except OSError as exc:
                why = f"{exc.strerror or exc}; the report in {str(out)!r} is left as it was"
                raise OSError(exc.errno, why, str(out / rel)) from None
            written.append(str(out / rel))
        old = _sibling(out, _OLD)
        if out.exists():
            os.rename(out, old)
        try:
            os.rename(stage, out)
        except BaseException:
            if old.exists() and not out.exists():
                os.rename(old, out)  # the previous report back in its place
            raise
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)
    if fd is not None:  # each file atomically (its error names it)
        fd.mkdir(parents=True, exist_ok=True)
        for f in figures:
            with atomic_output(fd / f"{f.name}.png") as tmp:
                tmp.write_bytes(f.png)
                os.chmod(tmp, 0o644)
            written.append(str(fd / f"{f.name}.png"))
    return {"files": written, "out": str(FsPath(out_dir))}
