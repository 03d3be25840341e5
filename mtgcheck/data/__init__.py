"""Data files shipped with mtgcheck: the card pool and the JSON Schemas."""
