"""The V1 family (Dalvik and ART `kFormatV1`): one module per on-disk variant.

`regular.py` (key text + `SLOW` data), `split.py` (a `.key` + `.data` pair, or a bare data
section), `streaming.py` (0xF1-0xF3 with inline packets), each with `sniff(head)` and
`read(src, source=...)`; they share `header.py` (data header, record layout, clock),
`records.py` + `clocks.py` (vectorised record decoding) and `tables.py` (to the assembly).
"""
