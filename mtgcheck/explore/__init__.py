"""``mtgcheck explore``: a local web page to explore a position with the reference model.

``session`` computes what the page shows (no web code); ``server`` serves it on 127.0.0.1
with the standard library's HTTP server; ``static/index.html`` is the page (HTML and plain
JavaScript, no build step).
"""
