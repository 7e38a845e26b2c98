"""``python -m mce_kit``: see mce_kit.cli."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
