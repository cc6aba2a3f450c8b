"""docs/errata.md against what it describes: the documents' printed numbers and the code."""

import inspect
import math
import re
from pathlib import Path

import numpy as np

from tcpfluid.analytic import conspicuous_round
from tcpfluid.published import PUBLISHED

ERRATA = (Path(__file__).resolve().parents[2] / "docs" / "errata.md").read_text(encoding="utf-8")


def _section(entry: str) -> str:
    """The text of ``## <entry> — ...`` up to the next section."""
    m = re.search(rf"^## {entry} — .*?(?=^## |\Z)", ERRATA, flags=re.S | re.M)
    assert m, entry
    return m.group(0)


def _summary_row(entry: str) -> list[str]:
    row = next(ln for ln in ERRATA.splitlines() if ln.startswith(f"| {entry} |"))
    return [c.strip() for c in row.strip("|").split(" | ")]


def test_n14_names_every_table_3_25_index_above_its_bound():
    # Jain's index of n flows whose nv Vegas flows average v and nr Reno flows r is at most
    # the index of the group means (Σx)² / (n Σx²): Cauchy-Schwarz within each group
    cells = {v.key.rsplit("/", 1)[0]: {} for v in PUBLISHED if v.key.startswith("001/table3.25")}
    for v in PUBLISHED:
        if v.key.startswith("001/table3.25"):
            cells[v.key.rsplit("/", 1)[0]][v.key.rsplit("/", 1)[1]] = v.value
    above = {}
    for key, c in cells.items():
        n, pct = (int(x) for x in re.search(r"/n(\d+)/vegas(\d+)$", key).groups())
        nv = round(n * pct / 100)
        nr = n - nv
        s = nv * c["vegas_goodput"] + nr * c["reno_goodput"]
        s2 = nv * c["vegas_goodput"] ** 2 + nr * c["reno_goodput"] ** 2
        bound = s * s / (n * s2)
        if c["jain"] > bound:
            above[key] = (c, bound)
    # the thesis's text, cell by cell (Tables 3.25a-d, 36 cells): these three and no other
    assert set(above) == {
        "001/table3.25a/red-54-108/vegas-3/n30/vegas30",
        "001/table3.25b/red-54-108/vegas-1_3/n30/vegas30",
        "001/table3.25b/red-54-108/vegas-1_3/n30/vegas70",
    }
    text = _section("N14")
    for c, bound in above.values():
        assert f"{c['jain']:.3f}" in text
        assert f"{c['vegas_goodput']:,}" in text or f"{c['vegas_goodput']}" in text
        assert f"{bound:.4f}".rstrip("0") in text or f"{bound:.3f}" in text


def test_e5_e6_summary_rows_name_the_shipped_default_and_the_printed_form():
    default = inspect.signature(conspicuous_round).parameters["queue"].default
    # the default is E8's bottleneck form: 3 + sqrt(4 μd − 7) rounded up to even at μd = 625
    assert default in (None, "bottleneck")
    assert conspicuous_round("tcp-ho", 625.0) == 54 == 2 * math.ceil((3 + math.sqrt(2493)) / 2)
    e5, e6 = _summary_row("E5"), _summary_row("E6")
    # columns: id, place, printed, correct, shipped as, printed form kept as
    assert 'queue="table"' in e5[4] and 'queue="paper"' in e5[5]
    assert 'queue="bottleneck"' in e5[4] and "(default, eq. 5)" not in e5[4]
    assert 'queue="paper"' in e6[4] and 'queue="bottleneck"' in e6[4]


def test_e6_states_where_the_cubic_has_three_real_roots():
    # eq. (5) k³ − 10k² + (40 − 8μd)k + 16μd − 64: count its real roots on either side of
    # the threshold the entry gives in closed form
    r = math.sqrt(69)
    b_star = 4 / 3 + np.cbrt(997 / 432 + 23 * r / 144) + np.cbrt(997 / 432 - 23 * r / 144)

    def real_roots(b: float) -> int:
        roots = np.roots([1.0, -10.0, 40.0 - 8.0 * b, 16.0 * b - 64.0])
        return int(np.sum(np.abs(roots.imag) < 1e-9))

    assert real_roots(b_star - 1e-4) == 1
    assert real_roots(b_star + 1e-4) == 3
    assert real_roots(1.7) == 1  # the bound the entry used to state
    text = _section("E6")
    assert f"{b_star:.4f}" in text
    assert "∛(997/432 + 23√69/144)" in text
    assert "μd > 1.6" not in text
