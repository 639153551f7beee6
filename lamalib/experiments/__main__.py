"""``python -m lamalib.experiments``: errors in the input (a file, an option, a
dataset) are printed as one line, not as a traceback."""

import sys

from lamalib.data.fetch import DownloadError
from lamalib.models.bert import PretrainedUnavailable
from lamalib.experiments.cli import FILE_KEYS, main
from lamalib.experiments.results import ResultsConflict

try:
    main()
except (ValueError, KeyError, TypeError, PermissionError, DownloadError,
        PretrainedUnavailable) as error:
    print(f"error: {error}", file=sys.stderr)
    if ("--train" in sys.argv and isinstance(error, ValueError)
            and not isinstance(error, ResultsConflict)):
        # the library's messages name keyword arguments; say how the command takes them
        print("(on the command line, file options go through --set: "
              + ", ".join(f"--set {k}=..." for k in FILE_KEYS) + ")", file=sys.stderr)
    sys.exit(2)
