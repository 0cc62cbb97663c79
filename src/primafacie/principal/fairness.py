"""Deprecated module (renamed in 0.2): this is now the package's ``engine`` module.

Importing it warns (``DeprecationWarning``) and every name resolves from the engine module,
the old class names too, for one release; see :mod:`primafacie._renamed`.
"""

# rename_vocabulary: skip-file (hand-written; tools/rename_vocabulary.py installs it verbatim
# at each old module's path when it moves that module to engine.py)

from .._renamed import moved_module

__getattr__, __all__ = moved_module(__name__)
