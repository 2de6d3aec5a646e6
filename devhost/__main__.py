"""Entry point: ``python -m devhost serve|research``."""

from __future__ import annotations

import logging
import sys

from devhost.cli import main

logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
sys.exit(main())
