"""``python -m tcpfluid.cli``: the ``tcpfluid`` command."""

import sys

from . import main

sys.exit(main())
