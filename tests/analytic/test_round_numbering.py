"""One round numbering for the slow-start exit (docs/analytic.md, "One round numbering").

Round 1 is ``[0, d]`` and sends the initial window; the exit round is the round at whose
end the sender decides from the RTTs of the exit window's own packets (one round after it
sent them); the exit time is the end of the exit round. The documents' printed values:

* the Quick Vegas paper (Chan, Lin, Ho 2008), §5.1: Vegas on 50 Mb/s × 100 ms "stops its
  exponentially-increasing slow-start phase at 1.2 second" with window 64 (Fig. 7 text,
  Fig. 1 table);
* the TCP-Ho paper (Ho, Chan, Chen 2007), Example 1 / §4.1: Vegas leaves slow start at round l = 12
  for μd = 625 (its Table 3 counts one more initial round than the Quick Vegas paper's Table 1).
"""

from __future__ import annotations

import pytest

from tcpfluid import Path
from tcpfluid.analytic import conspicuous_round, slow_start_exit, slow_start_windows

QV_PATH = Path.from_links(["1Gbps", "50Mbps", "1Gbps"], "100ms")


def test_document_000_exit_at_1_2_s_with_64_packets():
    ex = slow_start_exit("vegas", QV_PATH.bdp, QV_PATH.d)
    assert ex.window_pkts == 64
    # the 64-packet window is first sent in round 11 (Table 1 index 10): ends at 1.1 s;
    # its RTTs are read during round 12, whose end is the exit
    assert ex.round == 10 and ex.time_s == pytest.approx(11 * QV_PATH.d)
    assert ex.exit_round == 12
    # d includes the per-link transmission times (eq. 5): 1.2 s within 0.5 %
    assert ex.exit_time_s == pytest.approx(1.2, rel=0.005)


def test_document_004_l_is_the_same_round():
    ex = slow_start_exit("vegas", 625.0, 0.1)
    # the TCP-Ho paper's Vegas table (one extra initial round) shows 64 first at its index 11
    t004 = slow_start_windows("vegas", 14, indexing="tcp-ho")
    assert t004[11] == 64 and t004[10] == 32
    # l = 12 in the TCP-Ho paper (Example 1: l = 12 for μd = 625) is our exit round
    l_doc = 12
    assert ex.exit_round == l_doc
    # conspicuous_round adds ceil(μd − 7·64/8) rounds of +1 to that l
    k = float(conspicuous_round("vegas", 625.0))
    assert k == l_doc + (625 - 56)


@pytest.mark.parametrize("bdp", [50.0, 625.0, 5000.0])
def test_quick_vegas_exit_round_is_one_after_the_window_is_sent(bdp):
    ex = slow_start_exit("quick-vegas", bdp, 0.1)
    assert ex.exit_round == ex.round + 2
    assert ex.exit_time_s == pytest.approx(ex.time_s + 0.1)
