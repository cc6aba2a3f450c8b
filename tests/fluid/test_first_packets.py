"""The first packets' FIFO (``fluid._first_packets.first_packet_waits``), worked by hand."""

import doctest

import numpy as np

from tcpfluid.fluid import _first_packets


def test_docstring_examples_hold() -> None:
    # equal arrivals: the j-th first packet waits j packet times; a 3-packet window at 0
    # leaves 3 − 1.5 = 1.5 packets of work when the other flow's first packet arrives at 1.5
    result = doctest.testmod(_first_packets)
    assert result.attempted >= 2 and result.failed == 0


def test_spaced_windows_let_a_later_first_packet_in_between() -> None:
    # flow 0: 4 packets from t = 0, one every 2 s, served one a second: the queue empties
    # after each; flow 1's first packet at 2.5 finds flow 0's third (arrived at 2.0,
    # served until 3.0): it waits 0.5 s
    waits = _first_packets.first_packet_waits(
        np.array([0.0, 2.5]), np.array([4.0, 1.0]), np.array([2.0, 0.0]), 1.0
    )
    assert np.allclose(waits, [0.0, 0.5])
