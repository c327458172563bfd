"""``python -m medlda``: the command line."""

import sys

from medlda.cli import main

sys.exit(main())
