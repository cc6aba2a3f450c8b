"""``python -m tcpfluid``: the ``tcpfluid`` command (:func:`tcpfluid.cli.main`)."""

import sys

from .cli import main

sys.exit(main())
