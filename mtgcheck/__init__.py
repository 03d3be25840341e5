"""mtgcheck: the rules of Magic: The Gathering as one state machine, checked three ways."""

__version__ = "0.1.0"
