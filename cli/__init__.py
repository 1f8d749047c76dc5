"""foxgeese: referee, rules engine, AIs and tournaments for the fox-and-geese family of hunt games."""

__version__ = "0.1.0"
