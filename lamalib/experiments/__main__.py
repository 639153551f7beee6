"""``python -m lamalib.experiments``: errors in the input (a file, an option, a
dataset) are printed as one line, not as a traceback, with exit code 2; Ctrl-C says
how the run goes on, exit code 130."""

import os
import sys
import warnings

from lamalib import runtime
from lamalib.data.fetch import DownloadError
from lamalib.models.bert_recipe import PretrainedUnavailable
from lamalib.experiments.cli import FILE_KEYS, main
from lamalib.experiments.options import (UsageError, in_command_words,
                                         missing_dependency)
from lamalib.experiments.results import ResultsConflict, RunLocked

# a warning is one line on stderr, as an error is
warnings.formatwarning = lambda message, *_, **__: f"warning: {message}\n"
try:
    try:
        runtime.base_seed()  # a bad LAMALIB_SEED is named before anything runs
    except ValueError as error:
        raise UsageError(str(error)) from None
    main()
except UsageError as error:
    print(f"error: {error}", file=sys.stderr)
    sys.exit(2)
except SystemExit as error:
    if isinstance(error.code, int) or error.code is None:
        raise  # argparse's own errors and --help, or a plain exit
    print(f"error: {error}", file=sys.stderr)  # a message: an input error
    sys.exit(2)
except KeyboardInterrupt as error:  # a RunInterrupted knows the epoch
    print(str(error) or "interrupted; the same command goes on where it stopped "
          "(complete runs are skipped, an unfinished one resumes from its last "
          "checkpoint)", file=sys.stderr)
    sys.exit(130)
except ModuleNotFoundError as error:  # an optional dependency the install lacks
    print(f"error: {missing_dependency(error.name)}", file=sys.stderr)
    sys.exit(2)
except BrokenPipeError:  # `... | head` stopped reading: it has what it wanted
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error
    sys.exit(1)
except RunLocked as error:
    print(f"error: {error}", file=sys.stderr)
    sys.exit(2)
except (ValueError, KeyError, TypeError, PermissionError, DownloadError,
        PretrainedUnavailable) as error:
    message = str(error)
    if ("--train" in sys.argv and isinstance(error, ValueError)
            and not isinstance(error, ResultsConflict)):
        # the library's messages name keyword arguments; say them as the command does
        message = in_command_words(message, FILE_KEYS)
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)
