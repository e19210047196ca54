"""The Parquet dataset of many traces (docs/dataset.md): its layout and version
(`layout.py`), who a trace is (`keys.py`), labels (`labels.py`), adding traces with many
writers at once (`add.py`, `parts.py`, `publish.py`), removing them (`remove.py`), reading
it with DuckDB and pyarrow (`read.py`) and the same ingest on Apache Spark (`spark.py`).

It sits above the exporters (it writes with the `parquet` format's writer) and below the
CLI and the service.
"""
