"""Capture: recording method traces on a device over adb (`traceview record`).

`adb.py` runs adb and recognises its and `am`'s refusals; `recording.py` is one recording's
device side (start, stop, wait for the file, pull). The CLI (`cli/record.py`) times it,
handles Ctrl-C and checks the result with the reader.
"""
