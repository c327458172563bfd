"""``python -m medlda.cli``: the command line."""

import sys

from medlda.cli import main

sys.exit(main())
