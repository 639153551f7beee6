"""``python -m lamalib.experiments``: errors in the input (a file, an option, a
dataset) are printed as one line, not as a traceback."""

import sys

from ..data.fetch import DownloadError
from .cli import main

try:
    main()
except (ValueError, KeyError, TypeError, PermissionError, DownloadError) as error:
    print(f"error: {error}", file=sys.stderr)
    sys.exit(2)
