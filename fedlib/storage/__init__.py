"""Stored results: writing and reading ``results/``, and checking them against the code.

:mod:`~fedlib.storage.results` saves and loads a result with the configuration and the
:mod:`~fedlib.storage.environment` fingerprint that made it; :mod:`~fedlib.storage.stored`
is what the book's chapters read (computing a result when ``results/`` lacks it);
:mod:`~fedlib.storage.verification` recomputes the first tasks of a stored file and compares
them (:mod:`~fedlib.storage.comparison`, with the cross-machine
:mod:`~fedlib.storage.tolerance`). Every experiment is reached through
:data:`fedlib.experiments.registry.REGISTRY`, so this layer sits above the experiments.
"""
