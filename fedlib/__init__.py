"""fedlib: the reputation-and-contribution auction for horizontal federated learning.

Reference implementation of Zhang, Wu and Pan, *Auction-Based Ex-Post-Payment Incentive
Mechanism Design for Horizontal Federated Learning with Reputation and Contribution
Measurement*. ``fedlib/README.md`` maps its layers (which depend downwards only, as
``tests/test_layers.py`` checks), what each holds and which module to open for which change.
``fedlib.mechanism`` and ``fedlib.analysis`` are numpy only and never import torch.

The package's root imports no module of its own, so that every layer may read
``fedlib.__version__``. The version is ``pyproject.toml``'s, read from the installed
distribution's metadata (from ``pyproject.toml`` itself when a checkout is imported without
being installed). :func:`fedlib.conformance.check_mechanism` certifies a mechanism of one's own.
"""

from importlib import metadata as _metadata

try:  # the distribution's name on the package index (``fedlib`` there is another project)
    __version__ = _metadata.version("fedlib-incentive-book")
except _metadata.PackageNotFoundError:  # a checkout on sys.path, not installed
    import tomllib
    from pathlib import Path

    _pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    __version__ = (tomllib.loads(_pyproject.read_text())["project"]["version"]
                   if _pyproject.exists() else "0+unknown")
