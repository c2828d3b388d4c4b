"""A package's re-exported names, loaded from their modules when first used (PEP 562).

In a package's ``__init__``::

    __getattr__, __dir__ = lazy_names(globals(), {"name": "package.module", ...})

``package.name`` and ``from package import name`` then import ``package.module`` on the
first use and keep the value in the package's namespace (later uses are plain look-ups);
a name not in the table is an ``AttributeError``, as for any module; ``dir(package)``
lists the loaded and the not yet loaded names. A package that re-exports this way keeps
the imports under ``typing.TYPE_CHECKING`` for the type checker.

Pure Python, no Django, so that the rules engine can use it (the matches app installs its
translator at every start; the engine loads when one of its names is first used), and so
does :mod:`matches.services` (the close needs only its month's freeze).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any


def lazy_names(
    namespace: MutableMapping[str, Any], homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the package whose globals are ``namespace``,
    which re-exports each name of ``homes`` from the module it maps to."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *homes})

    return __getattr__, __dir__
