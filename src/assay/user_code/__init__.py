"""The user's own code that a config names (a python target, a custom scorer): importing
it and calling it so that whatever it raises, `sys.exit()` and `os._exit()` included, is
that trial's error and never the end of assay.

`calls` imports `module:function` or `file.py:function` and calls it guarded;
`process_exit` stands in for `os._exit` while a run holds it; `ctrl_c` tells Ctrl-C's
KeyboardInterrupt from one the user code raises itself. A layer as low as
`config`: imports only the root nouns and errors; targets, scorers, the runner and
the public API import it.
"""
