"""Markdown and self-contained HTML renderings of a :class:`~tcpfluid.report.Report`.

``index.md`` links the figures in ``figures/`` beside it; ``index.html`` embeds them as
base64 PNG, so it can be mailed or archived alone. The whole folder is written beside its
place and renamed into it (:func:`write_report`), so an interrupted run leaves the previous
report or the new one, never a mix.
"""

from __future__ import annotations

import base64
import contextlib
import html
import json
import os
import shutil
import uuid
from collections.abc import Iterable
from pathlib import Path as FsPath
from typing import Any

from .._validation import _pid_alive, atomic_output
from ._core import Report, SectionResult
from ._summary import summarize
from ._table import NA, Row, Table, fmt_value

__all__ = ["render_html", "render_markdown", "write_report"]


def _errors(row: Row) -> str:
    parts = []
    for c in row.compared:
        e = row.relative_error(c)
        parts.append(f"{c} {e * 100:+.1f} %" if e is not None else f"{c} –")
    return "; ".join(parts)


def _tolerances(row: Row) -> str:
    seen: list[str] = []
    for c in row.compared:
        s = f"{c} {row.tolerance(c).describe()}"
        seen.append(s)
    return "; ".join(seen)


def _cell(row: Row, col: str) -> str:
    v = row.values.get(col)
    if v is None:
        return ""
    s = fmt_value(v)
    if col == row.reference and not isinstance(v, NA):
        s = f"**{s}**"
    return s


#: the documents' short keys, as the tables and tcpfluid.published use them
DOCUMENT_KEYS = (
    "Documents: 000 the Quick Vegas paper (Chan, Lin, Ho 2008); 001 Tsang's thesis on the "
    "fairness of TCP Vegas (2000); 002 the iTCP-Vegas paper (Pan, Horng, Shih, Su 2011); "
    "003 the paper on Vegas in asymmetric networks (Fu, Chung, Liew); 004 the TCP-Ho paper "
    "(Ho, Chan, Chen 2007)."
)


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _summary_rows(report: Report) -> list[tuple[str, str, int, int, float]]:
    return [(s.name, s.title, s.n_rows, s.n_disagreements, s.elapsed_s) for s in report.sections]


def _header(report: Report, command: str | None) -> list[str]:
    mode = (
        "quick (CI settings: smaller grids, scaled-down many-flow runs)"
        if report.config.quick
        else "full"
    )
    v = ", ".join(f"{k} {val}" for k, val in report.versions.items())
    lines = [
        f"Mode: {mode}; {report.config.jobs} job(s); {report.elapsed_s:.1f} s wall, "
        f"{report.tasks_cpu_s:.1f} s CPU in {len(report.tasks)} tasks and "
        f"{report.main_cpu_s:.1f} s CPU in the report's own process (tables, figures); on a "
        "shared machine the CPU time is the fairer measure.",
        f"Versions: {v}.",
    ]
    if command:
        lines.insert(0, f"Command: `{command}`.")
    lines.append(DOCUMENT_KEYS)
    lines.append(
        f"{report.n_rows} compared rows, {report.n_disagreements} flagged DIFFERS. Every "
        "number is computed by this run; the reference value of each row is in **bold**; "
        "relative errors are against it; each verdict uses the tolerance stated under its "
        "table; `n/a` cells give their reason under the table. The packet simulator "
        "referees the fluid layers and the documents referee the packet simulator: where "
        "a row's reference is a document or a closed form, a fluid cell outside its "
        "tolerance of it agrees when it is within that tolerance of the packet cell, and "
        "the packet cell is judged against the reference (docs/report.md)."
    )
    return lines


_COMPARISONS_TITLE = "What some rows compare, and why (the sections say it again):"


def _comparisons(report: Report) -> list[str]:
    """The sections' statements of what their rows compare where a cell moved."""
    return [c for s in report.sections for c in s.comparisons]


def render_markdown(
    report: Report, *, command: str | None = None, figures_rel: str = "figures"
) -> str:
    """The report as Markdown (figures linked as ``<figures_rel>/<name>.png``)."""
    out = ["# tcpfluid validation report", ""]
    out += summarize(report).markdown()  # the summary in words opens the report
    out += ["## This run", "", *_header(report, command), ""]
    comparisons = _comparisons(report)
    if comparisons:
        out += [_COMPARISONS_TITLE, "", *[f"- {c}" for c in comparisons], ""]
    out += ["## Sections", ""]
    out += ["| section | rows | DIFFERS | compute time (s) |", "|---|---|---|---|"]
    for name, title, n, bad, el in _summary_rows(report):
        out.append(f"| [{_md_escape(title)}](#{name}) | {n} | {bad} | {el:.1f} |")
    out.append("")
    for s in report.sections:
        out += _md_section(s, figures_rel)
    return "\n".join(out) + "\n"


def _md_table(t: Table) -> list[str]:
    cols = list(t.columns)
    head = ["setting", "quantity", "unit", *cols, "relative error", "tolerance", "verdict"]
    out = [
        f"**{_md_escape(t.caption)}**",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for r in t.rows:
        cells = [
            r.setting,
            r.quantity,
            r.unit,
            *[_cell(r, c) for c in cols],
            _errors(r),
            _tolerances(r),
            r.verdict,
        ]
        out.append("| " + " | ".join(_md_escape(c) for c in cells) + " |")
    out.append("")
    notes = t.tolerance_notes()
    if notes:
        out.append("Tolerances:")
        out += [f"- {n}" for n in notes]
        out.append("")
    na = t.na_notes()
    if na:
        out.append("Not available (n/a):")
        out += [f"- {n}" for n in na]
        out.append("")
    return out


def _md_section(s: SectionResult, figures_rel: str) -> list[str]:
    out = [f'<a id="{s.name}"></a>', f"## {s.title}", "", s.intro, ""]
    for t in s.tables:
        out += _md_table(t)
    for f in s.figures:
        out += [
            f"![{_md_escape(f.caption)}]({figures_rel}/{f.name}.png)",
            "",
            f"*Figure `{f.name}`: {f.caption}*",
            "",
        ]
    for n in (*s.comparisons, *s.notes):
        out += [f"> {n}", ""]
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


def render_html(report: Report, *, command: str | None = None) -> str:
    """The report as one self-contained HTML page (figures embedded as base64 PNG)."""
    e = html.escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>tcpfluid validation report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>tcpfluid validation report</h1>",
    ]
    out += summarize(report).html()  # the summary in words opens the report
    out.append('<h2 id="this-run">This run</h2>')
    for line in _header(report, command):
        out.append(f"<p>{_inline(line)}</p>")
    comparisons = _comparisons(report)
    if comparisons:
        out.append(f"<p>{e(_COMPARISONS_TITLE)}</p><ul>")
        out += [f"<li>{e(c)}</li>" for c in comparisons]
        out.append("</ul>")
    out.append("<h2>Sections</h2>")
    out.append(
        "<table><tr><th>section</th><th>rows</th><th>DIFFERS</th><th>compute time (s)</th></tr>"
    )
    for name, title, n, bad, el in _summary_rows(report):
        out.append(
            f'<tr><td><a href="#{e(name)}">{e(title)}</a></td><td>{n}</td>'
            f"<td>{bad}</td><td>{el:.1f}</td></tr>"
        )
    out.append("</table>")
    for s in report.sections:
        out.append(f'<h2 id="{e(s.name)}">{e(s.title)}</h2><p>{e(s.intro)}</p>')
        for t in s.tables:
            out += _html_table(t)
        for f in s.figures:
            b64 = base64.b64encode(f.png).decode("ascii")
            out.append(
                f'<figure><img alt="{e(f.caption)}" src="data:image/png;base64,{b64}">'
                f"<figcaption>Figure <code>{e(f.name)}</code>: {e(f.caption)}"
                "</figcaption></figure>"
            )
        for note in (*s.comparisons, *s.notes):
            out.append(f"<blockquote>{e(note)}</blockquote>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _inline(s: str) -> str:
    """Escape, then turn `code` and **bold** markers into tags."""
    import re

    t = html.escape(s)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", t)


def _html_table(t: Table) -> list[str]:
    e = html.escape
    cols = list(t.columns)
    head = ["setting", "quantity", "unit", *cols, "relative error", "tolerance", "verdict"]
    out = [
        f"<p><b>{e(t.caption)}</b></p><table><tr>"
        + "".join(f"<th>{e(h)}</th>" for h in head)
        + "</tr>"
    ]
    for r in t.rows:
        cells = [e(r.setting), e(r.quantity), e(r.unit)]
        for c in cols:
            v = r.values.get(c)
            if isinstance(v, NA):
                cells.append(f'<span class="na" title="{e(v.reason)}">n/a</span>')
            else:
                cells.append(_inline(_cell(r, c)))
        cells += [e(_errors(r)), e(_tolerances(r))]
        row_html = "".join(f"<td>{c}</td>" for c in cells)
        cls = "ok" if r.ok else "bad"
        out.append(f'<tr>{row_html}<td class="{cls}">{e(r.verdict)}</td></tr>')
    out.append("</table>")
    notes = t.tolerance_notes()
    if notes:
        out.append("<p>Tolerances:</p><ul>" + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>")
    na = t.na_notes()
    if na:
        out.append(
            "<p>Not available (n/a):</p><ul>" + "".join(f"<li>{e(n)}</li>" for n in na) + "</ul>"
        )
    return out


def _atomic_write(path: FsPath, data: bytes) -> None:
    """Write one file atomically (a hidden ``.NAME.<pid>.<random>.tmp`` renamed over it; a
    temporary of a killed writer is removed by the next write of the same file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path) as tmp:
        try:
            with open(tmp, "wb") as fh:
                fh.write(data)
            os.chmod(tmp, 0o644)
        except OSError as exc:
            raise _disk_error(exc, path) from None


def _disk_error(exc: OSError, path: FsPath, unchanged: FsPath | None = None) -> OSError:
    """``exc`` restated naming ``path`` (and the report left as it was)."""
    why = exc.strerror or str(exc)
    if unchanged is not None:
        why += f"; the report in {str(unchanged)!r} is left as it was"
    return OSError(exc.errno, why, str(path))


#: suffixes of the hidden siblings of a report folder while it is replaced: the new report
#: being written (``.OUT.<pid>.<random>.tmp``) and the previous one (``.OUT.<pid>.<random>.old``)
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
        if entry.name in names or hidden_tmp:
            if entry.name == "figures" and entry.is_dir():
                for f in entry.iterdir():
                    if not (f.suffix in (".png", ".svg") or f.name.endswith(_STAGE)):
                        raise ValueError(
                            f"out {str(out)!r}: {str(f)!r} is not a report figure; the report "
                            "replaces its whole folder: give a new directory or move it away"
                        )
            continue
        raise ValueError(
            f"out {str(out)!r} holds {entry.name!r}, which is not part of a report; the "
            "report replaces its whole folder: give a new or report-only directory"
        )


def write_report(
    report: Report,
    out_dir: str | os.PathLike[str],
    *,
    figures_dir: str | os.PathLike[str] | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Write ``index.md``, ``index.html``, ``report.json`` and ``figures/*.png|svg`` into
    ``out_dir``; with ``figures_dir``, also write the PNG figures there (the README's
    ``figures/``, committed). Returns the written paths.

    The report appears whole or not at all: every file is written into a hidden folder
    beside ``out_dir`` (``.OUT.<pid>.<random>.tmp``), which then replaces ``out_dir`` by
    renaming (the previous report is removed after). A run killed on the way leaves hidden
    siblings that the next run removes (or puts back, if it was killed between the two
    renames). A file that cannot be written (a full disk) raises ``OSError`` naming it,
    with the previous report unchanged.

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
    # everything is rendered before anything is written
    texts = {
        "index.md": render_markdown(report, command=command),
        "index.html": render_html(report, command=command),
        "report.json": json.dumps(
            {**report.to_dict(), "summary": summarize(report).to_dict()}, indent=1, default=str
        ),
    }
    _check_report_only(out, {*texts, "figures"})
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_siblings(out)
    stage = _sibling(out, _STAGE)
    written: list[str] = []
    try:
        try:
            (stage / "figures").mkdir(parents=True)
            for s in report.sections:
                for f in s.figures:
                    for ext, data in (("png", f.png), ("svg", f.svg)):
                        (stage / "figures" / f"{f.name}.{ext}").write_bytes(data)
                        written.append(str(out / "figures" / f"{f.name}.{ext}"))
            for name, text in texts.items():
                (stage / name).write_text(text, encoding="utf-8")
                written.append(str(out / name))
        except OSError as exc:
            where = FsPath(exc.filename) if exc.filename else stage
            raise _disk_error(exc, where, unchanged=out) from None
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
    if fd is not None:
        for s in report.sections:
            for f in s.figures:
                p = fd / f"{f.name}.png"
                _atomic_write(p, f.png)
                written.append(str(p))
    return {"files": written, "out": str(FsPath(out_dir))}


def _figure_names(report: Report) -> Iterable[str]:
    for s in report.sections:
        for f in s.figures:
            yield f.name
