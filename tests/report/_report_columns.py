"""The report's columns as report.json names them: the contract the report's tests read
(stated here, independently of :mod:`tcpfluid.report`, so a renamed column fails them)."""

CLOSED_FORM, ROUNDS, ODE, PACKET, DOCUMENT = (
    "closed form",
    "round model",
    "ODE",
    "packet sim",
    "document",
)
