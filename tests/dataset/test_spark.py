"""The Spark ingest (issue 21) in Spark local mode: `traceview.dataset.spark.ingest` of 20+
traces (the readable corpus and generated ones, plus one that fails) on local[2] writes the
same tables — schema and values — as `dataset add`, and the portable queries of
docs/dataset.md give equal results on Spark SQL and DuckDB. Skips only where Java is absent
(.ci/run installs it; pyspark comes with the test extra)."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from support.corpus import readable
from support.datasets import read_tables, write_traces
from traceview.dataset.add import add
from traceview.dataset.layout import ALL_TABLES, PARTITIONS, file_schema, table_files
from traceview.dataset.read import sql

pytestmark = pytest.mark.slow
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("duckdb")
if shutil.which("java") is None:
    pytest.skip(
        "no Java: Spark needs it (.ci/run installs openjdk-17-jre-headless)",
        allow_module_level=True,
    )
# pyspark is in the test extra: missing, the test fails (it skips only without Java)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "dataset.md"
LABELS = {"app": "com.example", "build": "42", "branch": "main"}


def portable_queries() -> list[str]:
    """The SQL blocks of docs/dataset.md's "Portable queries" section."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## Portable queries", 1)[1].split("\n## ", 1)[0]
    return [q.strip() for q in re.findall(r"```sql\n(.*?)```", section, re.S)]


@pytest.fixture(scope="module")
def spark() -> Any:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("traceview-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("in")
    corpus = [p for p in readable() if p.stat().st_size < 4 << 20][:14]
    copies = []
    for i, p in enumerate(corpus):  # one folder: Spark names a file by its path
        copies.append(folder / f"c{i:02d}-{p.name}")
        shutil.copyfile(p, copies[-1])
    generated = write_traces(folder, list(range(60, 60 + max(6, 20 - len(copies)))), records=1500)
    bad = folder / "bad.trace"
    bad.write_bytes(b"SLOW" + b"\x00" * 60)
    return [*copies, *generated, bad]


@pytest.fixture(scope="module")
def datasets(
    spark: Any, inputs: list[Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    from traceview.dataset.spark import ingest

    by_add = tmp_path_factory.mktemp("add") / "ds"
    report = add(by_add, inputs, LABELS)
    assert len(report.added) >= 20 and len(report.failed) == 1
    by_spark = tmp_path_factory.mktemp("spark") / "ds"
    got = ingest(spark, [str(p) for p in inputs], str(by_spark), LABELS)
    assert sorted(got.added) == sorted(t for t, _ in report.added)
    assert [t for t, _ in got.failed] == [t for t, _, _ in report.failed]
    again = ingest(spark, [str(p) for p in inputs[:3]], str(by_spark), LABELS)  # idempotent
    assert not again.added and len(again.present) == 3
    return by_add, by_spark


def test_spark_writes_what_dataset_add_writes(datasets: tuple[Path, Path]) -> None:
    by_add, by_spark = datasets
    for table in ALL_TABLES:
        (part, *_) = table_files(by_spark, table)
        assert not set(PARTITIONS) & set(pq.read_schema(part).names), table
        spark_types = {f.name: f.type for f in pq.read_schema(part)}
        assert spark_types == {f.name: f.type for f in file_schema(table)}, table
    want, got = read_tables(by_add), read_tables(by_spark)
    for table in ALL_TABLES:
        assert got[table].num_rows == want[table].num_rows, table
        assert got[table].equals(want[table]), table


def test_portable_queries_agree_on_spark_sql_and_duckdb(
    spark: Any, datasets: tuple[Path, Path]
) -> None:
    from traceview.dataset.spark import spark_schema

    _, root = datasets
    for table in ALL_TABLES:
        folder = root / table
        if table_files(root, table):
            df = spark.read.option("basePath", str(folder)).parquet(str(folder))
        else:
            df = spark.createDataFrame([], spark_schema(table))
        df.createOrReplaceTempView(table)
    queries = portable_queries()
    assert len(queries) >= 5
    for query in queries:
        on_spark = [tuple(_plain(v) for v in row) for row in spark.sql(query).collect()]
        on_duckdb = [tuple(_plain(v) for v in row) for row in sql(root, query).rows]
        assert on_spark == on_duckdb, query
        assert on_duckdb, f"no rows: {query}"


def _plain(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6)
    if hasattr(value, "as_integer_ratio") and not isinstance(value, bool | int):
        return int(value) if value == int(value) else float(value)  # Decimal
    return value
