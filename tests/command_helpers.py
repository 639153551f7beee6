"""Helpers of the tests of ``python -m lamalib.experiments``: an input error as the
command raises it, and a training loop that Ctrl-C stops after a given epoch."""

import pytest

from lamalib.experiments.cli import main
from lamalib.experiments.options import UsageError


def usage_error(argv) -> str:
    """``main(argv)``'s one-line input error (exit code 2)."""
    with pytest.raises(UsageError) as caught:
        main(argv)
    assert caught.value.code == 2
    message = str(caught.value)
    assert "\n" not in message
    return message


def stopped_fit(real_fit, at_epoch: int):
    """``real_fit`` that raises KeyboardInterrupt once epoch ``at_epoch`` is done (and
    checkpointed), as Ctrl-C would."""
    def fit(*args, **kwargs):
        def stop(epoch, history, model):
            if epoch == at_epoch:
                raise KeyboardInterrupt
        kwargs["callbacks"] = [*kwargs.get("callbacks", []), stop]
        return real_fit(*args, **kwargs)
    return fit
