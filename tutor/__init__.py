"""The embedding tutor: how a language model turns token IDs into vectors.

The package root stays empty so that `tutor --help` imports nothing heavy.
"""

__version__ = "0.1.0"
